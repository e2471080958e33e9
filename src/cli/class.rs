//! `labcheck class serve MODULE [STEP]`: the instructor's room, a live page of a class named by
//! the flags of a class run (`--kubeconfigs`, `--contexts`, `--learners` and its templates,
//! `--work-dirs`, `--track`), served until Ctrl-C.

use std::net::SocketAddr;
use std::sync::Arc;

use clap::{Args, Subcommand};

use super::{RunArgs, emit};
use crate::bundle;
use crate::class;
use crate::error::{Error, exit};

/// `labcheck class …`.
#[derive(Debug, Args)]
pub struct ClassArgs {
    #[command(subcommand)]
    pub command: ClassCommand,
}

/// What to do for a class.
#[derive(Debug, Subcommand)]
pub enum ClassCommand {
    /// Serve a live page of the class: the matrix learner × check, the failures by cause, each
    /// learner's report on click; re-checked as repos and clusters change.
    Serve(ServeArgs),
}

/// Arguments of `labcheck class serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The module, e.g. module-10.
    pub module: String,

    /// The step, exercise or stage; all steps when left out.
    pub step: Option<String>,

    /// Address to listen on. Loopback unless you say otherwise: the page shows every learner's
    /// report to whoever can reach it.
    #[arg(long, default_value = "127.0.0.1:8080", value_name = "ADDR:PORT")]
    pub listen: SocketAddr,

    /// Also show each learner's bundle in DIR (`NAME.tar.zst` from `labcheck bundle`) as learner
    /// NAME, with the verdicts it records (read once: a bundle does not change).
    #[arg(long, value_name = "DIR")]
    pub bundles: Option<std::path::PathBuf>,

    #[command(flatten)]
    pub run: RunArgs,
}

/// Start following the class, serve the page, and wait for Ctrl-C.
pub async fn run(args: &ClassArgs) -> Result<u8, Error> {
    let ClassCommand::Serve(args) = &args.command;
    refuse_what_a_live_page_cannot_do(&args.run, args.bundles.is_some())?;
    let class = Arc::new(
        args.run
            .class_session(&args.module, args.step.as_deref())
            .open()?,
    );
    let title = class.title.clone();
    let recorded = match &args.bundles {
        Some(dir) => bundle::learners_in(dir).map_err(|e| Error::Usage(e.to_string()))?,
        None => Vec::new(),
    };
    let following = class::follow(class, recorded);
    let count = following.learners;
    let page = class::server::start(
        following.room.clone(),
        Arc::new(crate::report::class_page::ClassPage),
        args.listen,
    )
    .await
    .map_err(|e| {
        Error::Environment(format!(
            "cannot listen on {}: {e}. Choose another address with --listen (127.0.0.1:0 picks a free port)",
            args.listen
        ))
    })?;
    let mut text = format!(
        "labcheck class serve: {title} for {count} learner{} on {}\n",
        if count == 1 { "" } else { "s" },
        page.url()
    );
    if !page.addr.ip().is_loopback() {
        text.push_str(
            "  warning: not loopback: anyone who can reach this address sees every learner's report\n",
        );
    }
    text.push_str("  re-checks a learner when their work repos change (file events) or their cluster does (watch streams; otherwise every 5 s)\nPress Ctrl-C to stop.\n");
    let stop = super::serve::listen_for_ctrl_c()?;
    emit(&text);
    stop.await;
    drop(page);
    following.stop();
    emit("labcheck class serve: stopped\n");
    Ok(exit::PASS)
}

/// The page is one live view: no report files, no other format, no waiting (it re-checks on
/// every change instead).
fn refuse_what_a_live_page_cannot_do(run: &RunArgs, bundles: bool) -> Result<(), Error> {
    if run.report.asked_for_more_than_human() {
        return Err(Error::Usage(
            "`labcheck class serve` is a page, with no -o, --report or --output; for a document of the class run `labcheck MODULE STEP --kubeconfigs … -o json`".to_string(),
        ));
    }
    if run.wait.is_some() {
        return Err(Error::Usage(
            "`labcheck class serve` never waits: it checks each learner again the moment their repos or cluster change; drop --wait".to_string(),
        ));
    }
    if !run.fleet.active() && !bundles {
        return Err(Error::Usage(
            "name the class as for a class run: --kubeconfigs DIR, --contexts a,b,… or --learners a,b,… (with --work-dirs 'DIR/{learner}'), or give --bundles DIR".to_string(),
        ));
    }
    Ok(())
}
