//! Processes a test tier starts and owns: each started from a thread that lives as long as the
//! test process (so `PR_SET_PDEATHSIG` kills it if the process dies without exiting), each stopped
//! by PID at exit (an `atexit` handler: statics are never dropped), never by name; and the folders
//! they wrote, removed at exit.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{LazyLock, Mutex};

/// The children to stop at exit, in the order they started, and the folders to remove.
static CHILDREN: Mutex<Vec<i32>> = Mutex::new(Vec::new());
static DIRS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Remove `dir` when the process exits (after its children are stopped).
pub fn remove_at_exit(dir: &Path) -> Result<(), String> {
    DIRS.lock()
        .map_err(|e| e.to_string())?
        .push(dir.to_path_buf());
    Ok(())
}

extern "C" fn stop_children() {
    let pids = CHILDREN.lock().map(|p| p.clone()).unwrap_or_default();
    // The last started first: kube-apiserver before etcd, so it does not spend its last
    // moments retrying etcd; Argo CD before the API server it watches.
    for pid in pids.iter().rev() {
        // SAFETY: plain syscalls on PIDs this process started and has not reaped.
        unsafe {
            libc::kill(*pid, libc::SIGKILL);
            libc::waitpid(*pid, std::ptr::null_mut(), 0);
        }
    }
    // A maintainer's aid: `LABCHECK_TIER_KEEP=1` keeps each cluster's folder (its parts' logs)
    // to read after the run.
    if std::env::var_os("LABCHECK_TIER_KEEP").is_some() {
        return;
    }
    for dir in DIRS.lock().map(|d| d.clone()).unwrap_or_default() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// A folder for a tier's cluster (named `prefix…`, removed at exit) with fresh certificates
/// written into it.
pub fn cluster_dir(prefix: &str) -> Result<(PathBuf, crate::certs::Certs), String> {
    let dir = tempfile::Builder::new()
        .prefix(prefix)
        .tempdir()
        .map_err(|e| e.to_string())?
        .keep();
    remove_at_exit(&dir)?;
    let certs = crate::certs::Certs::generate().map_err(|e| format!("certificates: {e}"))?;
    certs
        .write(&dir)
        .map_err(|e| format!("certificates: {e}"))?;
    Ok((dir, certs))
}

/// A loopback port nothing listens on, for a part to bind, and never one this process handed out
/// before: the kernel may give a port it just freed again, and two parts told the same port (etcd's
/// client and peer ports, taken one after the other) fail with "address already in use".
pub fn free_port() -> u16 {
    static HANDED_OUT: Mutex<Vec<u16>> = Mutex::new(Vec::new());
    let mut handed_out = HANDED_OUT.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free loopback port");
        if !handed_out.contains(&port) {
            handed_out.push(port);
            return port;
        }
    }
}

/// Start `program` from a thread that lives as long as the process: `PR_SET_PDEATHSIG` fires when
/// the *thread* that forked the child ends, and test threads end after each test.
pub fn spawn(program: &Path, args: Vec<String>, log: &Path) -> Result<Child, String> {
    spawn_with(program, args, Vec::new(), log)
}

/// [`spawn`] with `env` added to this process's environment.
pub fn spawn_with(
    program: &Path,
    args: Vec<String>,
    env: Vec<(String, String)>,
    log: &Path,
) -> Result<Child, String> {
    static SPAWNER: LazyLock<Mutex<std::sync::mpsc::Sender<Job>>> = LazyLock::new(|| {
        let (tx, rx) = std::sync::mpsc::channel::<Job>();
        std::thread::Builder::new()
            .name("control-plane-parent".into())
            .spawn(move || {
                for job in rx {
                    job();
                }
                // The channel never closes: the static sender lives until exit.
            })
            .expect("a spawner thread");
        Mutex::new(tx)
    });
    type Job = Box<dyn FnOnce() + Send>;
    let (tx, rx) = std::sync::mpsc::channel();
    let program = program.to_path_buf();
    let log = log.to_path_buf();
    let job: Job = Box::new(move || {
        let result = (|| {
            let out = std::fs::File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
            let err = out.try_clone().map_err(|e| e.to_string())?;
            let mut command = Command::new(&program);
            command
                .args(&args)
                .envs(env)
                .stdin(Stdio::null())
                .stdout(out)
                .stderr(err);
            // SAFETY: only async-signal-safe calls between fork and exec.
            unsafe {
                command.pre_exec(|| {
                    if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                        return Err(std::io::Error::last_os_error());
                    }
                    Ok(())
                });
            }
            let child = command
                .spawn()
                .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
            Ok::<Child, String>(child)
        })();
        let _ = tx.send(result);
    });
    SPAWNER
        .lock()
        .map_err(|e| e.to_string())?
        .send(job)
        .map_err(|e| e.to_string())?;
    let child = rx.recv().map_err(|e| e.to_string())??;
    let mut pids = CHILDREN.lock().map_err(|e| e.to_string())?;
    if pids.is_empty() {
        // SAFETY: registering a plain extern "C" function.
        unsafe { libc::atexit(stop_children) };
    }
    pids.push(child.id() as i32);
    Ok(child)
}

/// A process's errors (klog's `E`/`F` lines, etcd's `"level":"error"`) and last lines, for a
/// failure message.
pub fn tail(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let errors = lines.iter().filter(|l| {
        l.starts_with('E')
            || l.starts_with('F')
            || l.starts_with("Error")
            || l.contains("\"level\":\"error\"")
    });
    let last = lines[lines.len().saturating_sub(10)..].iter();
    errors.chain(last).copied().collect::<Vec<_>>().join("\n")
}

/// etcd for a test plane: on two free loopback ports, its data and log in `dir`, without fsync
/// (a test's data outlives nothing). Returns its client URL, the child and its log.
pub fn start_etcd(etcd: &Path, dir: &Path) -> Result<(String, Child, PathBuf), String> {
    let (client_port, peer_port) = (free_port(), free_port());
    let url = format!("http://127.0.0.1:{client_port}");
    let peer = format!("http://127.0.0.1:{peer_port}");
    let log = dir.join("etcd.log");
    let child = spawn(
        etcd,
        vec![
            format!("--data-dir={}", dir.join("etcd").display()),
            format!("--listen-client-urls={url}"),
            format!("--advertise-client-urls={url}"),
            format!("--listen-peer-urls={peer}"),
            format!("--initial-advertise-peer-urls={peer}"),
            format!("--initial-cluster=default={peer}"),
            "--unsafe-no-fsync=true".into(),
            "--log-level=warn".into(),
        ],
        &log,
    )?;
    Ok((url, child, log))
}

/// The flags both tiers start kube-apiserver with: on loopback at `port`, storing in etcd at
/// `etcd_url`, its certificates (and the service accounts' keys) in `pki`, RBAC, and the
/// harness's kubelet for logs. Each tier adds its own after them.
pub fn apiserver_flags(etcd_url: &str, pki: &Path, port: u16) -> Vec<String> {
    vec![
        format!("--etcd-servers={etcd_url}"),
        format!("--cert-dir={}", pki.display()),
        format!("--secure-port={port}"),
        "--bind-address=127.0.0.1".into(),
        "--advertise-address=127.0.0.1".into(),
        // The `kubernetes` Service's endpoints may not be a loopback address; nothing reaches
        // the API server by them (Argo CD by the kubeconfig's URL, ARGOCD_FAKE_IN_CLUSTER).
        "--endpoint-reconciler-type=none".into(),
        "--service-cluster-ip-range=10.0.0.0/24".into(),
        "--allow-privileged=true".into(),
        "--authorization-mode=RBAC".into(),
        format!("--client-ca-file={}", pki.join("ca.crt").display()),
        "--service-account-issuer=https://kubernetes.default.svc.cluster.local".into(),
        format!(
            "--service-account-key-file={}",
            pki.join("sa.pub").display()
        ),
        format!(
            "--service-account-signing-key-file={}",
            pki.join("sa.key").display()
        ),
        // Logs come from the harness's kubelet over HTTPS on loopback.
        "--kubelet-preferred-address-types=InternalIP".into(),
    ]
}
