//! The real-Argo-CD tier: the course walks itself on a real Argo CD. Argo CD v3.6.2's
//! application controller, repo server and API server, with kube-apiserver, etcd,
//! kube-controller-manager, kube-scheduler and KWOK (all built from Go modules by
//! `scripts/kube-testbin.sh` and `scripts/argocd-testbin.sh`), redis and `git daemon`, run as
//! plain processes on loopback, one cluster per test process. Module 10's lab is served and
//! bootstrapped as the kind workflow does it; each step's solution runs as a learner runs it and
//! labcheck judges what Argo CD really did. See docs/real-argocd.md.

#[allow(dead_code)] // the tier installs Argo CD's CRDs through it and uses nothing else of it
#[path = "../real_apiserver/api.rs"]
mod api;
#[path = "../common/certs.rs"]
mod certs;
#[path = "../common/kubeconfig.rs"]
mod kubeconfig;
#[path = "../common/kubelet.rs"]
mod kubelet;
#[path = "../common/named_commands.rs"]
mod named_commands;
#[path = "../common/processes.rs"]
mod processes;
#[path = "../common/runtime.rs"]
mod runtime;
#[path = "../common/scratch.rs"]
mod scratch;
#[path = "../common/testbin.rs"]
mod testbin;

mod argocd;
mod charts;
mod cluster;
mod commands;
mod containers;
mod derived_states;
mod differences;
mod failures;
mod hint_commands;
mod lab;
mod recordings;
mod walk;
