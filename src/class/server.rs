//! The room served over HTTP: the page (`/`), its live part as server-sent events (`/events`, one
//! `room` event with the part's HTML on connect and after every change) and a learner's full
//! report (`/learner/NAME`, text). Read-only: only GET is answered.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures::Stream;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::Room;

/// How the room is shown: the reporter's business, handed in so this layer never renders.
pub trait Renderer: Send + Sync {
    /// The whole page, with the live part as it is now.
    fn page(&self, room: &Room) -> String;
    /// The live part alone (matrix, causes, counts), sent on every change.
    fn live(&self, room: &Room) -> String;
    /// Learner `name`'s full report as their terminal shows it; `None` for no such learner.
    fn learner(&self, room: &Room, name: &str) -> Option<String>;
}

/// The page being served; dropping it stops it.
pub struct RunningPage {
    /// Where it listens (the real port when started on port 0).
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

impl RunningPage {
    /// `http://ADDR/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }
}

impl Drop for RunningPage {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        // An open event stream would hold a graceful shutdown forever.
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

#[derive(Clone)]
struct Shared {
    room: Arc<Room>,
    renderer: Arc<dyn Renderer>,
}

/// Serve `room` on `listen` through `renderer`.
pub async fn start(
    room: Arc<Room>,
    renderer: Arc<dyn Renderer>,
    listen: SocketAddr,
) -> std::io::Result<RunningPage> {
    let listener = tokio::net::TcpListener::bind(listen).await?;
    let addr = listener.local_addr()?;
    let app = Router::new()
        .route("/", get(page))
        .route("/events", get(events))
        .route("/learner/{name}", get(learner))
        .with_state(Shared { room, renderer });
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .await;
    });
    Ok(RunningPage {
        addr,
        stop: Some(stop),
        task: Some(task),
    })
}

/// A response of `content_type` that no cache keeps (the page is live).
fn fresh(content_type: &'static str, body: String) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

async fn page(State(shared): State<Shared>) -> Response {
    fresh(
        "text/html; charset=utf-8",
        shared.renderer.page(&shared.room),
    )
}

async fn learner(State(shared): State<Shared>, Path(name): Path<String>) -> Response {
    match shared.renderer.learner(&shared.room, &name) {
        Some(text) => fresh("text/plain; charset=utf-8", text),
        None => (
            StatusCode::NOT_FOUND,
            format!("no learner {name} in this class\n"),
        )
            .into_response(),
    }
}

/// The shortest time between two events of one page: a change after a quiet moment goes out at
/// once, and the burst of a class's first round (every learner finishing within a second) goes
/// out as a few renders of the whole room instead of one per learner.
const EVENT_GAP: Duration = Duration::from_millis(100);

/// The live part now, then after every change; changes that come faster than a client reads, or
/// within [`EVENT_GAP`] of the last event, are folded into the latest (a watch channel keeps
/// only that).
async fn events(
    State(shared): State<Shared>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let changes = shared.room.subscribe();
    let stream = futures::stream::unfold(
        (shared, changes, None::<Instant>),
        |(shared, mut changes, last)| async move {
            if let Some(last) = last {
                changes.changed().await.ok()?;
                tokio::time::sleep_until((last + EVENT_GAP).into()).await;
            }
            changes.borrow_and_update();
            // Carriage returns are not allowed in an event's data; the page has none of its own.
            let html = shared.renderer.live(&shared.room).replace('\r', "");
            let event = Event::default().event("room").data(html);
            Some((Ok(event), (shared, changes, Some(Instant::now()))))
        },
    );
    Sse::new(stream).keep_alive(KeepAlive::default())
}
