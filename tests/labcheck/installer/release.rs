//! A labcheck release on a loopback HTTP server, laid out as GitHub serves one
//! (`/releases/download/<tag>/<file>`, `/releases/latest/download/<file>`), made from the labcheck
//! binary these tests run: what install.sh downloads, checks and installs.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// What the server answers for one path.
#[derive(Clone)]
enum Body {
    Bytes(Vec<u8>),
    File(PathBuf),
    /// The file's length promised, then the connection closed after `usize` bytes: a download
    /// cut short.
    CutFile(PathBuf, usize),
}

/// The files of one release, served until the test process ends; every path asked for is kept.
pub struct Release {
    /// Where the releases are, as install.sh takes it (`LABCHECK_RELEASES_URL`).
    pub url: String,
    files: Arc<Mutex<HashMap<String, Body>>>,
    asked: Arc<Mutex<Vec<String>>>,
}

/// The binary the tests run, and its SHA-256 as `sha256sum` prints it (computed once: it is large).
pub fn labcheck_binary() -> (PathBuf, &'static str) {
    static SUM: OnceLock<String> = OnceLock::new();
    let path = PathBuf::from(env!("CARGO_BIN_EXE_labcheck"));
    let sum = SUM.get_or_init(|| {
        let out = Command::new("sha256sum")
            .arg(&path)
            .output()
            .unwrap_or_else(|e| panic!("sha256sum runs: {e}"));
        let text = String::from_utf8_lossy(&out.stdout);
        let sum = text.split_whitespace().next().unwrap_or_default();
        assert_eq!(sum.len(), 64, "sha256sum printed a digest: {text}");
        sum.to_string()
    });
    (path, sum.as_str())
}

impl Release {
    /// An empty release server: every path is a 404 until a file is added.
    pub fn served() -> Release {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
        let addr = listener.local_addr().unwrap_or_else(|e| panic!("{e}"));
        let files: Arc<Mutex<HashMap<String, Body>>> = Arc::default();
        let asked: Arc<Mutex<Vec<String>>> = Arc::default();
        let (served, kept) = (files.clone(), asked.clone());
        std::thread::spawn(move || {
            // Bounded: an install makes two requests.
            for stream in listener.incoming().take(256) {
                let Ok(stream) = stream else { continue };
                answer(stream, &served, &kept);
            }
        });
        Release {
            url: format!("http://{addr}/releases"),
            files,
            asked,
        }
    }

    /// A release `tag` (also the latest) holding labcheck as the asset for `target` and
    /// SHA256SUMS listing it with its true checksum.
    pub fn of_labcheck(tag: &str, target: &str) -> Release {
        let release = Release::served();
        let (binary, sum) = labcheck_binary();
        let asset = format!("labcheck-{target}");
        release.add(tag, &asset, Body::File(binary));
        release.add_sums(tag, &format!("{sum}  {asset}\n"));
        release
    }

    /// Serve `text` as the release's SHA256SUMS.
    pub fn add_sums(&self, tag: &str, text: &str) {
        self.add(tag, "SHA256SUMS", Body::Bytes(text.as_bytes().to_vec()));
    }

    /// Serve labcheck as `asset`, cut off after `bytes` bytes.
    pub fn add_cut_binary(&self, tag: &str, asset: &str, bytes: usize) {
        self.add(tag, asset, Body::CutFile(labcheck_binary().0, bytes));
    }

    fn add(&self, tag: &str, name: &str, body: Body) {
        let mut files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        files.insert(format!("/releases/download/{tag}/{name}"), body.clone());
        files.insert(format!("/releases/latest/download/{name}"), body);
    }

    /// Every path asked for, in order.
    pub fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// One request: `GET <path>` answered with the file, or 404; then the connection closes.
fn answer(mut stream: TcpStream, files: &Mutex<HashMap<String, Body>>, asked: &Mutex<Vec<String>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).is_ok_and(|n| n == 1) {
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head);
    let path = head
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .to_string();
    asked
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(path.clone());
    let body = files
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(&path)
        .cloned();
    let (mut reader, promised): (Box<dyn Read>, u64) = match body {
        None => {
            let _ = stream.write_all(
                b"HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\nConnection: close\r\n\r\nNot Found",
            );
            return;
        }
        Some(Body::Bytes(bytes)) => {
            let len = bytes.len() as u64;
            (Box::new(std::io::Cursor::new(bytes)), len)
        }
        Some(Body::File(path)) => {
            let file = open(&path);
            let len = file_len(&file, &path);
            (Box::new(file), len)
        }
        Some(Body::CutFile(path, cut)) => {
            let file = open(&path);
            let len = file_len(&file, &path);
            (Box::new(file.take(cut as u64)), len)
        }
    };
    let _ = write!(
        stream,
        "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: {promised}\r\nConnection: close\r\n\r\n"
    );
    let _ = std::io::copy(&mut reader, &mut stream);
}

fn open(path: &Path) -> File {
    File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn file_len(file: &File, path: &Path) -> u64 {
    file.metadata()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .len()
}
