//! A kubeconfig's `proxy-url`, used as kubectl uses it: a tiny recording HTTP proxy (tokio, no
//! library: what a client writes is what it records) in front of `labcheck serve` (an `http://`
//! cluster) and of the real API server (`https://`). For the plain-http cluster a proxy gets
//! each request in absolute form (`GET http://host:port/path HTTP/1.1`) and forwards it; for the
//! https one the client asks for a tunnel (`CONNECT host:port`). labcheck (the real binary,
//! checking step 4) and kubectl go through it alike, and labcheck's verdict is the one it gives
//! without the proxy.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use labcheck::serve::ServeOptions;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

use crate::plane::{RT, block_on, plane};

/// The running proxy: its URL and the request lines it got, in order.
struct Proxy {
    url: String,
    lines: Arc<Mutex<Vec<String>>>,
}

impl Proxy {
    fn start() -> Proxy {
        let listener = block_on(TcpListener::bind("127.0.0.1:0")).expect("a loopback port");
        let url = format!("http://{}", listener.local_addr().expect("an address"));
        let lines = Arc::new(Mutex::new(Vec::new()));
        let seen = lines.clone();
        RT.spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                tokio::spawn(relay(client, seen.clone()));
            }
        });
        Proxy { url, lines }
    }

    fn lines(&self) -> Vec<String> {
        self.lines.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn clear(&self) {
        self.lines.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}

/// One client connection: its first request line says what it wants. `CONNECT host:port`: a
/// tunnel. `METHOD http://host:port/path`: forwarded in origin form with `Connection: close`,
/// the answer relayed, one request per connection. Anything else (origin form) is not a proxy
/// request: 400.
async fn relay(client: TcpStream, seen: Arc<Mutex<Vec<String>>>) {
    let mut client = BufReader::new(client);
    let mut line = String::new();
    if client.read_line(&mut line).await.unwrap_or(0) == 0 {
        return;
    }
    let request_line = line.trim_end().to_string();
    let mut head = Vec::new();
    loop {
        let mut header = String::new();
        if client.read_line(&mut header).await.unwrap_or(0) == 0 {
            return;
        }
        if header == "\r\n" {
            break;
        }
        head.push(header);
    }
    // The line as the client wrote it, and its proxy credentials if it sent any.
    let credentials = head.iter().find_map(|h| {
        let (name, value) = h.split_once(':')?;
        name.eq_ignore_ascii_case("proxy-authorization")
            .then(|| format!(" [Proxy-Authorization: {}]", value.trim()))
    });
    seen.lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(format!("{request_line}{}", credentials.unwrap_or_default()));
    let parts: Vec<&str> = request_line.split(' ').collect();
    let [method, target, version] = parts[..] else {
        return;
    };
    if method == "CONNECT" {
        let Ok(mut upstream) = TcpStream::connect(target).await else {
            let _ = client
                .get_mut()
                .write_all(b"HTTP/1.1 502 Bad Gateway\r\n\r\n")
                .await;
            return;
        };
        if client
            .get_mut()
            .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
            .await
            .is_err()
        {
            return;
        }
        let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
        return;
    }
    let Some(rest) = target.strip_prefix("http://") else {
        let _ = client
            .get_mut()
            .write_all(
                b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            )
            .await;
        return;
    };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let path = if path.is_empty() { "/" } else { path };
    let Ok(mut upstream) = TcpStream::connect(authority).await else {
        let _ = client
            .get_mut()
            .write_all(b"HTTP/1.1 502 Bad Gateway\r\n\r\n")
            .await;
        return;
    };
    let mut forwarded = format!("{method} {path} {version}\r\n");
    let mut length = 0usize;
    for header in &head {
        let name = header
            .split(':')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        if name == "content-length" {
            length = header[15..].trim().parse().unwrap_or(0);
        }
        if !matches!(
            name.as_str(),
            "connection" | "proxy-connection" | "proxy-authorization"
        ) {
            forwarded.push_str(header);
        }
    }
    forwarded.push_str("Connection: close\r\n\r\n");
    let mut body = vec![0; length];
    if client.read_exact(&mut body).await.is_err()
        || upstream.write_all(forwarded.as_bytes()).await.is_err()
        || upstream.write_all(&body).await.is_err()
    {
        return;
    }
    let _ = tokio::io::copy(&mut upstream, client.get_mut()).await;
    let _ = client.get_mut().shutdown().await;
}

/// `kubeconfig` with `proxy-url: proxy` on its cluster, written to `out`.
fn through(kubeconfig: &Path, proxy: &str, out: PathBuf) -> PathBuf {
    let text = std::fs::read_to_string(kubeconfig).expect("the kubeconfig");
    let mut config: serde_json::Value = serde_yaml::from_str(&text).expect("a kubeconfig");
    config["clusters"][0]["cluster"]["proxy-url"] = serde_json::json!(proxy);
    std::fs::write(&out, serde_yaml::to_string(&config).expect("yaml")).expect("written");
    out
}

fn run(program: &str, args: &[&std::ffi::OsStr], home: &Path) -> (i32, String, String) {
    let output = Command::new(program)
        .args(args)
        .env("HOME", home)
        .env("NO_COLOR", "1")
        .env_remove("KUBECONFIG")
        .env_remove("LABCHECK_WORK_DIR")
        .env_remove("HTTP_PROXY")
        .env_remove("HTTPS_PROXY")
        .env_remove("http_proxy")
        .env_remove("https_proxy")
        .output()
        .unwrap_or_else(|e| panic!("{program} runs: {e}"));
    let (out, err) = crate::texts(&output);
    (output.status.code().unwrap_or(-1), out, err)
}

#[test]
fn a_proxy_url_is_used_as_kubectl_uses_it_absolute_form_for_http_and_a_tunnel_for_https() {
    let plane = plane();
    let done = crate::step_4_done();
    let served = crate::serve_on_loopback(done.snapshot.clone(), ServeOptions::default());
    let serve_config =
        crate::kubeconfig_without_a_user(&served, done.dir.path().join("serve.kubeconfig"));
    let proxy = Proxy::start();
    let home = done.dir.path();
    let work = done.world.work_dir();
    let os = |s: &str| std::ffi::OsString::from(s);
    let serve_authority = served
        .url()
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    let real_authority = plane.url.trim_start_matches("https://").to_string();

    let with_user = proxy.url.replace("http://", "http://learner:pa%40ss@");
    // `learner:pa@ss`, as a proxy reads it.
    let basic = "Basic bGVhcm5lcjpwYUBzcw==";
    // (cluster, its kubeconfig, the proxy-url, what every request line through the proxy must
    // hold)
    let cases: [(&str, &Path, &str, String); 3] = [
        (
            "labcheck serve (http)",
            &serve_config,
            &proxy.url,
            format!(" http://{serve_authority}/"),
        ),
        (
            "labcheck serve (http), a proxy-url with a user",
            &serve_config,
            &with_user,
            format!(" http://{serve_authority}/"),
        ),
        (
            "the real API server (https)",
            &plane.admin_kubeconfig,
            &proxy.url,
            format!("CONNECT {real_authority} "),
        ),
    ];
    let mut problems = Vec::new();
    for (n, (name, direct, proxy_url, expected)) in cases.iter().enumerate() {
        let proxied = through(
            direct,
            proxy_url,
            done.dir.path().join(format!("proxied-{n}.kubeconfig")),
        );
        let user_sent = proxy_url
            .contains('@')
            .then(|| format!("[Proxy-Authorization: {basic}]"));
        let labcheck = |kubeconfig: &Path| {
            run(
                env!("CARGO_BIN_EXE_labcheck"),
                &[
                    &os("module-10"),
                    &os("step-4"),
                    &os("-o"),
                    &os("json"),
                    &os("--kubeconfig"),
                    kubeconfig.as_os_str(),
                    &os("--work-dir"),
                    work.as_os_str(),
                ],
                home,
            )
        };
        let (direct_code, direct_report, _) = labcheck(direct);
        proxy.clear();
        let (code, report, err) = labcheck(&proxied);
        let by_labcheck = proxy.lines();
        assert_eq!(direct_code, 0, "{name}: step 4 is solved: {direct_report}");
        if (code, &report) != (direct_code, &direct_report) {
            problems.push(format!("{name}: through the proxy labcheck said ({code}) {report}{err}\n  without it ({direct_code}) {direct_report}"));
        }
        proxy.clear();
        let (kubectl_code, _, kubectl_err) = run(
            "kubectl",
            &[
                &os("--kubeconfig"),
                proxied.as_os_str(),
                &os("-n"),
                &os("checkout-dev"),
                &os("get"),
                &os("jobs"),
            ],
            home,
        );
        let by_kubectl = proxy.lines();
        assert_eq!(
            kubectl_code, 0,
            "{name}: kubectl through the proxy: {kubectl_err}"
        );
        for (who, lines) in [("labcheck", &by_labcheck), ("kubectl", &by_kubectl)] {
            if lines.is_empty() {
                problems.push(format!("{name}: {who} sent nothing through the proxy"));
            }
            for line in lines {
                if !line.contains(expected.as_str()) {
                    problems.push(format!("{name}: {who} sent `{line}`, not `…{expected}…`"));
                }
                if line.contains("Proxy-Authorization") != user_sent.is_some()
                    || user_sent
                        .as_ref()
                        .is_some_and(|u| !line.contains(u.as_str()))
                {
                    problems.push(format!(
                        "{name}: {who} sent `{line}`, its proxy credentials should be {user_sent:?}"
                    ));
                }
            }
        }
        eprintln!(
            "proxy-url, {name}: labcheck sent {} requests, kubectl {}, e.g. `{}`",
            by_labcheck.len(),
            by_kubectl.len(),
            by_labcheck.first().map(String::as_str).unwrap_or_default()
        );
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
