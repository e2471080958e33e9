// The course (modules/ and expected/) is embedded with include_dir, which cannot tell cargo that
// it read those folders; without this an edited check file would not reach the binary.
fn main() {
    println!("cargo:rerun-if-changed=modules");
    println!("cargo:rerun-if-changed=expected");
}
