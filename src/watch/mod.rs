//! What wakes watch mode up: a change in a work repo (file events through notify, or polling
//! where events are not available), a key press, a cluster tick. The loop itself is the
//! runner's (`run/follow.rs`, for `--watch` and the class page), the screen the command line's (`cli/watch.rs`); this module only
//! turns the outside world into [`Trigger`]s.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
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

/// Where each watched folder's changes go: the followers of a shared watcher.
type Routes = Arc<Mutex<Vec<(PathBuf, UnboundedSender<Trigger>)>>>;

/// One watcher of the operating system for one follower (`--watch`) or many (the learners of a
/// class page).
///
/// Linux gives a user 128 inotify instances by default: with a watcher each, a class of 200
/// left 72 learners polling every repo file every 2 s, which cost more than checking them. One
/// instance watches every learner's repos here, and each event goes to the followers whose
/// folder holds its path. A folder that cannot have file events (the watch limit, a file
/// system without them, `LABCHECK_WATCH_POLL`) is polled by one shared poller instead.
pub struct SharedRepoWatcher {
    routes: Routes,
    events: Mutex<Option<notify::RecommendedWatcher>>,
    /// Why there are no file events at all, when there are none.
    no_events: Option<String>,
    polling: Mutex<Option<notify::PollWatcher>>,
}

impl SharedRepoWatcher {
    /// A watcher with no folder yet; `force_poll` polls everything.
    pub fn new(force_poll: bool) -> SharedRepoWatcher {
        let routes = Routes::default();
        let (events, no_events) = if force_poll {
            (None, Some(format!("{POLL_ENV} is set")))
        } else {
            match notify::recommended_watcher(route(&routes)) {
                Ok(watcher) => (Some(watcher), None),
                Err(e) => (None, Some(format!("file events unavailable: {e}"))),
            }
        };
        SharedRepoWatcher {
            routes,
            events: Mutex::new(events),
            no_events,
            polling: Mutex::new(None),
        }
    }

    /// Watch `dirs` (recursively, `.git/` included, so commits and pushes count) for `tx`: every
    /// change under one of them sends it [`Trigger::RepoChanged`]. A folder watched before is
    /// watched again (it may have been removed and made anew), never routed twice. Returns how
    /// the changes of `dirs` are noticed: polling (and why) when any of them has no file events.
    pub fn watch(&self, dirs: &[PathBuf], tx: &UnboundedSender<Trigger>) -> Mode {
        {
            let mut routes = lock(&self.routes);
            for dir in dirs {
                if !routes.iter().any(|(d, t)| d == dir && t.same_channel(tx)) {
                    routes.push((dir.clone(), tx.clone()));
                }
            }
        }
        let mut polled: Option<String> = self.no_events.clone();
        for dir in dirs.iter().filter(|d| d.is_dir()) {
            let by_events = match lock(&self.events).as_mut() {
                Some(w) => match w.watch(dir, RecursiveMode::Recursive) {
                    Ok(()) => true,
                    Err(e) => {
                        polled.get_or_insert(format!("file events unavailable: {e}"));
                        false
                    }
                },
                None => false,
            };
            if !by_events {
                let mut polling = lock(&self.polling);
                if polling.is_none() {
                    let config = notify::Config::default().with_poll_interval(POLL_INTERVAL);
                    match notify::PollWatcher::new(route(&self.routes), config) {
                        Ok(poller) => *polling = Some(poller),
                        Err(e) => {
                            let why = polled.take().unwrap_or_default();
                            polled = Some(format!("{why}; polling failed too ({e})"));
                        }
                    }
                }
                if let Some(poller) = polling.as_mut()
                    && let Err(e) = poller.watch(dir, RecursiveMode::Recursive)
                {
                    let why = polled.take().unwrap_or_default();
                    polled = Some(format!("{why}; {e}"));
                }
            }
        }
        match polled {
            Some(why) => Mode::Polling(why),
            None => Mode::Events,
        }
    }
}

/// A handler sending each change to the followers whose folder holds its path.
fn route(routes: &Routes) -> impl Fn(notify::Result<notify::Event>) + Clone + Send + 'static {
    let routes = routes.clone();
    move |event: notify::Result<notify::Event>| {
        // Reads (including labcheck's own) are not changes.
        let Ok(event) = event else { return };
        if matches!(event.kind, EventKind::Access(_)) {
            return;
        }
        for (dir, tx) in lock(&routes).iter() {
            if event.paths.iter().any(|p| p.starts_with(dir)) {
                let _ = tx.send(Trigger::RepoChanged);
            }
        }
    }
}

/// A lock whose holder panicked still guards whole values (a route list, a watcher).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
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

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::sync::mpsc;

    /// Whether `rx` got a change within `within`.
    async fn woke(rx: &mut mpsc::UnboundedReceiver<Trigger>, within: Duration) -> bool {
        let got = tokio::time::timeout(within, rx.recv()).await;
        while rx.try_recv().is_ok() {}
        matches!(got, Ok(Some(Trigger::RepoChanged)))
    }

    /// The learner at `dir` edits their values file to hold `tag`.
    fn edit(dir: &std::path::Path, tag: &str) {
        std::fs::write(dir.join("helm/dev.yaml"), format!("tag: {tag}\n"))
            .unwrap_or_else(|e| panic!("{e}"));
    }

    #[tokio::test]
    async fn one_shared_watcher_wakes_only_the_learner_whose_repo_changed() {
        let root = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let (ana_dir, bob_dir) = (root.path().join("ana"), root.path().join("bob"));
        for dir in [&ana_dir, &bob_dir] {
            std::fs::create_dir_all(dir.join("helm")).unwrap_or_else(|e| panic!("{e}"));
        }
        for force_poll in [false, true] {
            let files = SharedRepoWatcher::new(force_poll);
            let (ana_tx, mut ana) = mpsc::unbounded_channel();
            let (bob_tx, mut bob) = mpsc::unbounded_channel();
            let mode = files.watch(std::slice::from_ref(&ana_dir), &ana_tx);
            // The footer says how changes are noticed, and why it is polling when it is.
            let polled = matches!(&mode, Mode::Polling(why) if why.contains(POLL_ENV));
            assert_eq!(polled, force_poll, "{mode:?}");
            files.watch(std::slice::from_ref(&bob_dir), &bob_tx);
            // Watching again routes nothing twice.
            files.watch(std::slice::from_ref(&ana_dir), &ana_tx);
            let within = if force_poll {
                POLL_INTERVAL * 3
            } else {
                Duration::from_secs(2)
            };
            // The poller needs one look to know the files before it can see a change.
            tokio::time::sleep(if force_poll {
                POLL_INTERVAL + Duration::from_millis(200)
            } else {
                Duration::from_millis(50)
            })
            .await;
            edit(&ana_dir, &force_poll.to_string());
            assert!(
                woke(&mut ana, within).await,
                "ana's edit (poll: {force_poll})"
            );
            assert!(
                !woke(&mut bob, Duration::from_millis(300)).await,
                "bob changed nothing"
            );
            edit(&bob_dir, &format!("b{force_poll}"));
            assert!(
                woke(&mut bob, within).await,
                "bob's edit (poll: {force_poll})"
            );
        }
    }
}
