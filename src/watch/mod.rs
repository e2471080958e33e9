//! What wakes watch mode up: a change in a work repo (file events through notify, or polling
//! where events are not available), a key press, a cluster tick. The loop itself is the
//! session's (`run/watched.rs`), the screen the command line's (`cli/watch.rs`); this module only
//! turns the outside world into [`Trigger`]s.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crossterm::event::{self, Event, KeyCode, KeyEventKind, KeyModifiers};
use crossterm::{cursor, execute, terminal};
use notify::{EventKind, RecursiveMode, Watcher};
use tokio::sync::mpsc::UnboundedSender;

/// How often the polling fallback looks at the repos.
pub const POLL_INTERVAL: Duration = Duration::from_secs(2);

/// How often watch mode re-reads the cluster: often enough to feel live, rare enough not to
/// flood the API.
pub const CLUSTER_INTERVAL: Duration = Duration::from_secs(5);

/// Set to a non-empty value to poll instead of waiting for file events (file systems that do
/// not deliver them: NFS, some VM and container shares).
pub const POLL_ENV: &str = "LABCHECK_WATCH_POLL";

/// Why the loop should look again (or stop).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// Something in a work repo changed.
    RepoChanged,
    /// Time to re-read the cluster.
    ClusterTick,
    /// The learner pressed q (or Esc, Ctrl-C).
    Quit,
}

/// How repo changes are noticed, for the footer to say.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mode {
    /// The operating system's file events.
    Events,
    /// Looking every [`POLL_INTERVAL`], and why.
    Polling(String),
}

/// Keeps the watcher alive; dropping it stops watching.
pub struct RepoWatcher {
    _watcher: Option<Box<dyn Watcher + Send>>,
    pub mode: Mode,
}

/// Watch `dirs` (recursively, `.git/` included, so commits and pushes count) and send
/// [`Trigger::RepoChanged`] on every change. Falls back to polling when file events cannot be
/// had, or when `force_poll` says so.
pub fn watch_repos(
    dirs: &[PathBuf],
    force_poll: bool,
    tx: UnboundedSender<Trigger>,
) -> RepoWatcher {
    let handler = {
        let tx = tx.clone();
        move |event: notify::Result<notify::Event>| {
            // Reads (including labcheck's own) are not changes.
            if let Ok(event) = event
                && !matches!(event.kind, EventKind::Access(_))
            {
                let _ = tx.send(Trigger::RepoChanged);
            }
        }
    };
    let reason = if force_poll {
        format!("{POLL_ENV} is set")
    } else {
        match notify::recommended_watcher(handler.clone()) {
            Ok(mut watcher) => match watch_all(&mut watcher, dirs) {
                Ok(()) => {
                    return RepoWatcher {
                        _watcher: Some(Box::new(watcher)),
                        mode: Mode::Events,
                    };
                }
                Err(e) => format!("file events unavailable: {e}"),
            },
            Err(e) => format!("file events unavailable: {e}"),
        }
    };
    let config = notify::Config::default().with_poll_interval(POLL_INTERVAL);
    match notify::PollWatcher::new(handler, config) {
        Ok(mut watcher) => {
            let mode = match watch_all(&mut watcher, dirs) {
                Ok(()) => Mode::Polling(reason),
                Err(e) => Mode::Polling(format!("{reason}; {e}")),
            };
            RepoWatcher {
                _watcher: Some(Box::new(watcher)),
                mode,
            }
        }
        Err(e) => RepoWatcher {
            _watcher: None,
            mode: Mode::Polling(format!("{reason}; polling failed too ({e})")),
        },
    }
}

fn watch_all(watcher: &mut impl Watcher, dirs: &[PathBuf]) -> notify::Result<()> {
    for dir in dirs.iter().filter(|d| d.is_dir()) {
        watcher.watch(dir, RecursiveMode::Recursive)?;
    }
    Ok(())
}

/// Send a tick when the cluster changes (its watch streams, see [`crate::probe::cluster::Cluster::wait_for_change`]),
/// and at least every [`CLUSTER_INTERVAL`] for what no stream follows, until the receiver is gone.
pub fn spawn_cluster_changes(
    cluster: std::sync::Arc<crate::probe::cluster::Cluster>,
    tx: UnboundedSender<Trigger>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut seen = cluster.generation();
        let mut last = std::time::Instant::now();
        loop {
            let now = cluster.wait_for_change(seen, last + CLUSTER_INTERVAL).await;
            if now > seen || last.elapsed() >= CLUSTER_INTERVAL {
                seen = now;
                last = std::time::Instant::now();
                if tx.send(Trigger::ClusterTick).is_err() {
                    return;
                }
            }
        }
    })
}

/// The terminal in watch mode: raw (so `q` arrives without Enter) on the alternate screen, put
/// back as it was when dropped, even on an error.
pub struct Screen {
    stop: Arc<AtomicBool>,
    keys: Option<std::thread::JoinHandle<()>>,
}

impl Screen {
    /// Take over the terminal and read keys on a thread of their own.
    pub fn enter(tx: UnboundedSender<Trigger>) -> std::io::Result<Screen> {
        terminal::enable_raw_mode()?;
        let mut out = std::io::stdout();
        if let Err(e) = execute!(out, terminal::EnterAlternateScreen, cursor::Hide) {
            let _ = terminal::disable_raw_mode();
            return Err(e);
        }
        let stop = Arc::new(AtomicBool::new(false));
        let keys = {
            let stop = stop.clone();
            std::thread::spawn(move || read_keys(&tx, &stop))
        };
        Ok(Screen {
            stop,
            keys: Some(keys),
        })
    }

    /// Replace what is on screen with `text`.
    pub fn draw(&self, text: &str) -> std::io::Result<()> {
        let mut out = std::io::stdout().lock();
        execute!(
            out,
            cursor::MoveTo(0, 0),
            terminal::Clear(terminal::ClearType::All)
        )?;
        // Raw mode does not turn \n into \r\n.
        out.write_all(text.replace('\n', "\r\n").as_bytes())?;
        out.flush()
    }
}

impl Drop for Screen {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(keys) = self.keys.take() {
            let _ = keys.join();
        }
        let _ = execute!(
            std::io::stdout(),
            cursor::Show,
            terminal::LeaveAlternateScreen
        );
        let _ = terminal::disable_raw_mode();
    }
}

fn read_keys(tx: &UnboundedSender<Trigger>, stop: &AtomicBool) {
    while !stop.load(Ordering::Relaxed) {
        // Poll with a timeout so the thread notices `stop` and the terminal can be given back.
        match event::poll(Duration::from_millis(100)) {
            Ok(true) => {}
            Ok(false) => continue,
            Err(_) => return,
        }
        let Ok(Event::Key(key)) = event::read() else {
            continue;
        };
        let quit = key.kind == KeyEventKind::Press
            && match key.code {
                KeyCode::Char('q') | KeyCode::Esc => true,
                KeyCode::Char('c') => key.modifiers.contains(KeyModifiers::CONTROL),
                _ => false,
            };
        if quit {
            let _ = tx.send(Trigger::Quit);
            return;
        }
    }
}
