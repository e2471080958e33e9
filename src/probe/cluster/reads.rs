//! The reads checks ask for, each sent once per run (concurrent readers share one request):
//! objects, lists, Applications, Jobs and their pods, pod logs.

use k8s_openapi::api::batch::v1::Job;
use k8s_openapi::api::core::v1::Pod;

use super::api::{self, Answer, ApiPath, ProbeError, RawResponse};
use super::argocd::Application;
use super::tape::Replayed;
use super::transport::{MAX_LOG_BYTES, send};
use super::{
    ARGOCD_CRD, Access, Cell, Cluster, GENERATED_SELECTOR_KEYS, LogRead, Read, application_path,
    redact_secret,
};
use crate::probe::tape::Mode;

impl Cluster {
    /// GET `path` once per run: concurrent readers share one in-flight request. Recorded on the
    /// run's tape, or answered from it (see [`super::tape`]).
    pub async fn get_raw(&self, path: &ApiPath) -> Result<RawResponse, ProbeError> {
        match &self.tape {
            Mode::Live => self.fetch(path).await,
            Mode::Record(tape) => {
                let answer = self.fetch(path).await;
                super::tape::record(tape, path, &answer);
                answer
            }
            Mode::Replay(tape) => match super::tape::replayed(tape, path) {
                Replayed::Served { skipped, unended } => {
                    let mut raw = self.fetch(path).await?;
                    raw.skipped = skipped;
                    raw.unended = unended;
                    Ok(raw)
                }
                Replayed::Answer(answer) => answer,
            },
        }
    }

    /// GET `path` from the cluster, once per run.
    async fn fetch(&self, path: &ApiPath) -> Result<RawResponse, ProbeError> {
        let (client, describe) = match &self.access {
            Access::Unavailable(e) => return Err(e.clone()),
            Access::Api {
                client, describe, ..
            } => (client, describe),
        };
        let url = path.url();
        let keep_tail = (path.subresource.as_deref() == Some("log")).then_some(MAX_LOG_BYTES);
        let mut new_read = false;
        let cell = self
            .cache_lock()
            .entry(url.clone())
            .or_insert_with(|| {
                new_read = true;
                (std::time::Instant::now(), Cell::default())
            })
            .1
            .clone();
        let answer = cell
            .get_or_init(|| async {
                let started = std::time::Instant::now();
                let sent = send(client, describe, url.clone(), keep_tail, self.budget).await;
                let answer = sent.answer;
                if let Some(log) = &self.read_log {
                    let read = Read {
                        answer: match &answer {
                            Ok(raw) if raw.unended => {
                                format!(
                                    "{}, still coming after {} bytes",
                                    raw.code,
                                    raw.body.len() as u64 + raw.skipped
                                )
                            }
                            Ok(raw) => raw.code.to_string(),
                            Err(e) => format!("no answer: {e}"),
                        },
                        url,
                        took: started.elapsed(),
                        retried: sent.retried,
                    };
                    log.lock().unwrap_or_else(|p| p.into_inner()).push(read);
                }
                answer
            })
            .await
            .clone();
        if new_read {
            // A wait under way follows it too (watch mode reads while its ticker waits).
            self.reads_made.send_modify(|n| *n += 1);
        }
        answer
    }

    /// What the API answered to GET `path` (read once per run).
    async fn answer(&self, path: &ApiPath, what_for_crd: &str) -> Result<Answer, ProbeError> {
        let raw = self.get_raw(path).await?;
        api::classify(path, &raw, &self.describe(), what_for_crd)
    }

    /// The object at `path`: `Ok(None)` when the API serves its type and it is not there.
    pub async fn get(
        &self,
        path: &ApiPath,
        what_for_crd: &str,
    ) -> Result<Option<serde_json::Value>, ProbeError> {
        match self.answer(path, what_for_crd).await? {
            Answer::Found(body) => {
                let mut object = api::parse_json(path, &body)?;
                // By what the object is, not by what was asked: a proxy or a broken server may
                // answer a ConfigMap path with a Secret.
                if path.is_secret() || api::looks_like_secret(&object) {
                    redact_secret(&mut object);
                }
                api::check_shape(path, &object)?;
                Ok(Some(object))
            }
            Answer::NotFound => {
                if let Some(ns) = &path.namespace
                    && !self.namespace_exists(ns).await?
                {
                    return Err(ProbeError::NamespaceMissing {
                        namespace: ns.clone(),
                    });
                }
                Ok(None)
            }
            Answer::BadRequest(message) => Err(bad_request(path, message)),
        }
    }

    /// Whether namespace `ns` exists. A user who may not read namespaces gets `true`: labcheck
    /// then reports the object as not found, which is what kubectl would show them.
    pub async fn namespace_exists(&self, ns: &str) -> Result<bool, ProbeError> {
        let path = ApiPath::new("v1", "namespaces").named(ns);
        let raw = self.get_raw(&path).await?;
        match api::classify(&path, &raw, &self.describe(), "the core API") {
            Ok(Answer::NotFound) => Ok(false),
            Ok(_) | Err(ProbeError::Forbidden { .. }) => Ok(true),
            Err(e) => Err(e),
        }
    }

    /// A list at `path` (its `items`).
    pub async fn list(
        &self,
        path: &ApiPath,
        what_for_crd: &str,
    ) -> Result<Vec<serde_json::Value>, ProbeError> {
        match self.answer(path, what_for_crd).await? {
            Answer::Found(body) => {
                let value = api::parse_json(path, &body)?;
                match value.get("items") {
                    Some(serde_json::Value::Array(items)) => {
                        let mut items = items.clone();
                        // Items of a list carry no `kind`; the list's kind says what they are.
                        let all_secrets = path.is_secret() || api::looks_like_secret(&value);
                        for item in &mut items {
                            if all_secrets || api::looks_like_secret(item) {
                                redact_secret(item);
                            }
                        }
                        Ok(items)
                    }
                    // An empty list may come back as `items: null`.
                    Some(serde_json::Value::Null) | None => Ok(Vec::new()),
                    Some(_) => Err(ProbeError::Garbage {
                        url: path.url(),
                        expected: "a list".to_string(),
                        reason: "`items` is not an array".to_string(),
                    }),
                }
            }
            Answer::NotFound => Ok(Vec::new()),
            Answer::BadRequest(message) => Err(bad_request(path, message)),
        }
    }

    /// Argo CD Application `name` in `ns`.
    pub async fn application(
        &self,
        ns: &str,
        name: &str,
    ) -> Result<Option<Application>, ProbeError> {
        let path = application_path(ns, name);
        match self.get(&path, ARGOCD_CRD).await? {
            Some(value) => api::typed(&path, &value, "an Argo CD Application").map(Some),
            None => Ok(None),
        }
    }

    /// Job `name` in `ns`.
    pub async fn job(&self, ns: &str, name: &str) -> Result<Option<Job>, ProbeError> {
        let path = ApiPath::new("batch/v1", "jobs")
            .in_namespace(ns)
            .named(name);
        match self.get(&path, "the batch/v1 API").await? {
            Some(value) => api::typed(&path, &value, "a Job").map(Some),
            None => Ok(None),
        }
    }

    /// Pods in `ns` matching a label selector (`a=b,c=d`; empty for all).
    pub async fn pods(&self, ns: &str, selector: &str) -> Result<Vec<Pod>, ProbeError> {
        let mut path = ApiPath::new("v1", "pods").in_namespace(ns);
        if !selector.is_empty() {
            path = path.query(format!("labelSelector={}", api::encode_query(selector)));
        }
        let items = self.list(&path, "the core API").await?;
        items
            .iter()
            .map(|item| api::typed(&path, item, "a Pod"))
            .collect()
    }

    /// The pods of a Job, selected as `kubectl logs job/NAME` selects them: by the Job's
    /// `spec.selector`, else by `job-name`.
    ///
    /// A Job with the selector Kubernetes generates (only its `controller-uid`) labels every pod it
    /// makes with `job-name` as well, so its pods are read from the list by `job-name` (see
    /// [`Cluster::job_pods_by_name`]) and filtered by the selector: that list can be requested
    /// before the Job has arrived, saving a round trip. Other selectors are asked for as they are.
    pub async fn job_pods(&self, ns: &str, job: &Job) -> Result<Vec<Pod>, ProbeError> {
        let name = job.metadata.name.as_deref().unwrap_or("");
        let selector = job.spec.as_ref().and_then(|s| s.selector.as_ref());
        let labels = selector
            .and_then(|s| s.match_labels.as_ref())
            .filter(|labels| !labels.is_empty());
        let Some(labels) = labels else {
            return self.pods(ns, &format!("job-name={name}")).await;
        };
        let generated = !name.is_empty()
            && selector.is_some_and(|s| s.match_expressions.as_ref().is_none_or(Vec::is_empty))
            && labels
                .keys()
                .all(|k| GENERATED_SELECTOR_KEYS.contains(&k.as_str()));
        if generated {
            let pods = self.job_pods_by_name(ns, name).await?;
            return Ok(pods
                .into_iter()
                .filter(|pod| {
                    let have = pod.metadata.labels.as_ref();
                    labels
                        .iter()
                        .all(|(k, v)| have.and_then(|l| l.get(k)) == Some(v))
                })
                .collect());
        }
        let selector = labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(",");
        self.pods(ns, &selector).await
    }

    /// Pods labelled `job-name=NAME`; a check that will read a Job's pods asks for these at the
    /// same time as the Job (one request per run, shared through the cache).
    pub async fn job_pods_by_name(&self, ns: &str, name: &str) -> Result<Vec<Pod>, ProbeError> {
        self.pods(ns, &format!("job-name={name}")).await
    }

    /// The log of `container` in pod `pod` (all of it; checks keep what they need).
    pub async fn logs(
        &self,
        ns: &str,
        pod: &str,
        container: Option<&str>,
    ) -> Result<LogRead, ProbeError> {
        let mut path = ApiPath::new("v1", "pods")
            .in_namespace(ns)
            .named(pod)
            .subresource("log");
        if let Some(container) = container {
            path = path.query(format!("container={}", api::encode_query(container)));
        }
        let raw = self.get_raw(&path).await?;
        match api::classify(&path, &raw, &self.describe(), "the core API") {
            Ok(Answer::Found(text)) if raw.unended => Ok(LogRead::Unended {
                text,
                skipped: raw.skipped,
                within: super::transport::shown(self.budget),
            }),
            Ok(Answer::Found(text)) if raw.skipped > 0 => Ok(LogRead::Tail {
                text,
                skipped: raw.skipped,
            }),
            Ok(Answer::Found(text)) => Ok(LogRead::Text(text)),
            Ok(Answer::BadRequest(message)) => Ok(LogRead::NotAvailable(message)),
            Ok(Answer::NotFound) => Ok(LogRead::NotAvailable(format!("pods \"{pod}\" not found"))),
            // A log 404 without the pod's name still means the pod went away between the list
            // and the read; the log resource itself is always served.
            Err(ProbeError::ResourceNotServed { .. }) => Ok(LogRead::NotAvailable(format!(
                "pod {pod} has no log (it is gone)"
            ))),
            Err(e) => Err(e),
        }
    }
}

/// A 400 where an object or a list was asked for: the server's message, with the URL.
fn bad_request(path: &ApiPath, message: String) -> ProbeError {
    ProbeError::Server {
        code: 400,
        url: path.url(),
        message,
    }
}
