//! The room served over HTTP: the page (`/`), its live part as server-sent events (`/events`, one
//! `room` event with the part's HTML on connect and after every change) and a learner's full
//! report (`/learner/NAME`, text), through labcheck's one HTTP layer (`crate::http`). Read-only:
//! anything but GET and HEAD is refused.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures::Stream;

use super::Room;
use crate::http;

/// How the room is shown: the reporter's business, handed in so this layer never renders.
pub trait Renderer: Send + Sync {
    /// The whole page, with the live part as it is now.
    fn page(&self, room: &Room) -> String;
    /// The live part alone (matrix, causes, counts), sent on every change.
    fn live(&self, room: &Room) -> String;
    /// Learner `name`'s full report as their terminal shows it; `None` for no such learner.
    fn learner(&self, room: &Room, name: &str) -> Option<String>;
}

/// The page being served; dropping it stops it (at once: an open event stream would hold a
/// graceful shutdown forever).
pub struct RunningPage {
    /// Where it listens (the real port when started on port 0).
    pub addr: SocketAddr,
    _served: http::Served,
}

impl RunningPage {
    /// `http://ADDR/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
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
    let listener = http::bind(listen).await?;
    let app = Router::new()
        .route("/", get(page))
        .route("/events", get(events))
        .route("/learner/{name}", get(learner))
        .with_state(Shared { room, renderer })
        .layer(middleware::from_fn(refuse_writes));
    let served = http::serve(listener, app)?;
    Ok(RunningPage {
        addr: served.addr,
        _served: served,
    })
}

/// The page only shows: anything but a read is refused before any route is looked at.
async fn refuse_writes(request: Request, next: Next) -> Response {
    if http::is_read(request.method()) {
        return next.run(request).await;
    }
    let mut refused = (
        StatusCode::METHOD_NOT_ALLOWED,
        "the class page is read-only: it answers GET and HEAD\n",
    )
        .into_response();
    refused
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
    refused
}

/// A response of `content_type` that no cache keeps (the page is live).
fn fresh(content_type: &'static str, body: String) -> Response {
    http::live(body.into_response(), content_type)
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

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    /// A renderer of a few words, so the answers can be told apart.
    struct Words;

    impl Renderer for Words {
        fn page(&self, room: &Room) -> String {
            format!("page of {}", room.title)
        }
        fn live(&self, _room: &Room) -> String {
            "live".to_string()
        }
        fn learner(&self, _room: &Room, name: &str) -> Option<String> {
            (name == "erin").then(|| "erin's report".to_string())
        }
    }

    /// The raw answer to `method PATH`.
    async fn ask(addr: SocketAddr, method: &str, path: &str) -> String {
        let mut stream = tokio::net::TcpStream::connect(addr)
            .await
            .expect("the page's port");
        let request = format!(
            "{method} {path} HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"
        );
        stream
            .write_all(request.as_bytes())
            .await
            .expect("a request");
        let mut answer = String::new();
        stream.read_to_string(&mut answer).await.expect("an answer");
        answer.to_lowercase()
    }

    #[tokio::test]
    async fn the_page_answers_reads_uncached_and_refuses_every_write_whatever_the_path() {
        let room = Arc::new(Room::new("module-10 step-4".to_string(), false, Vec::new()));
        let page = start(room, Arc::new(Words), SocketAddr::from(([127, 0, 0, 1], 0)))
            .await
            .expect("the page starts");
        let shown = ask(page.addr, "GET", "/").await;
        assert!(shown.starts_with("http/1.1 200"), "{shown}");
        assert!(shown.contains("cache-control: no-store"), "{shown}");
        assert!(shown.contains("page of module-10 step-4"), "{shown}");
        let report = ask(page.addr, "GET", "/learner/erin").await;
        assert!(report.contains("erin's report"), "{report}");
        let nobody = ask(page.addr, "GET", "/learner/zoe").await;
        assert!(nobody.starts_with("http/1.1 404"), "{nobody}");
        for (method, path) in [
            ("POST", "/"),
            ("PUT", "/learner/erin"),
            ("DELETE", "/events"),
            ("PATCH", "/no/such/path"),
        ] {
            let refused = ask(page.addr, method, path).await;
            assert!(
                refused.starts_with("http/1.1 405") && refused.contains("allow: get, head"),
                "{method} {path}: {refused}"
            );
            assert!(refused.contains("read-only"), "{refused}");
        }
    }
}
