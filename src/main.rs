use std::process::ExitCode;

fn main() -> ExitCode {
    labcheck::cli::main()
}
