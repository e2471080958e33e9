//! The API server itself: its version (`GET /version`) and its clock (the `Date` header of that
//! answer), for `labcheck doctor`.

use jiff::Timestamp;
use serde::Deserialize;

use super::api::ProbeError;
use super::transport::chain;
use super::{Access, Cluster};

/// What `GET /version` told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerVersion {
    /// `v1.33.1`.
    pub git_version: String,
    /// `linux/amd64`, when given.
    pub platform: Option<String>,
    /// The server's clock, from the `Date` header (whole seconds), when it sent one.
    pub date: Option<Timestamp>,
    /// This machine's clock just before the request and right after the answer.
    pub asked_at: Timestamp,
    pub answered_at: Timestamp,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct VersionBody {
    git_version: String,
    #[serde(default)]
    platform: Option<String>,
}

impl Cluster {
    /// Ask the API server for its version (not cached: it also measures the clock).
    pub async fn server_version(&self) -> Result<ServerVersion, ProbeError> {
        let (client, describe) = match &self.access {
            Access::Unavailable(e) => return Err(e.clone()),
            Access::Api {
                client, describe, ..
            } => (client, describe),
        };
        let unreachable =
            |reason: String| super::transport::unreachable_or_untrusted(describe, reason);
        let request = super::transport::get_request("/version", "application/json")?;
        let asked_at = Timestamp::now();
        let exchange = async {
            let response = client
                .send(request)
                .await
                .map_err(|e| unreachable(chain(&e)))?;
            let answered_at = Timestamp::now();
            let code = response.status().as_u16();
            let date = response
                .headers()
                .get(http::header::DATE)
                .and_then(|v| v.to_str().ok())
                .and_then(parse_http_date);
            let bytes = response
                .into_body()
                .collect_bytes()
                .await
                .map_err(|e| unreachable(format!("the answer broke off: {}", chain(&e))))?;
            Ok::<_, ProbeError>((code, date, answered_at, bytes))
        };
        let (code, date, answered_at, bytes) =
            match tokio::time::timeout(self.budget, exchange).await {
                Ok(result) => result?,
                Err(_) => {
                    return Err(unreachable(format!(
                        "no answer within {}",
                        super::transport::shown(self.budget)
                    )));
                }
            };
        let body = String::from_utf8_lossy(&bytes);
        match code {
            200..=299 => {
                let parsed: VersionBody =
                    serde_json::from_str(&body).map_err(|e| ProbeError::Garbage {
                        url: "/version".to_string(),
                        expected: "a version document".to_string(),
                        reason: e.to_string(),
                    })?;
                Ok(ServerVersion {
                    git_version: parsed.git_version,
                    platform: parsed.platform,
                    date,
                    asked_at,
                    answered_at,
                })
            }
            401 => Err(ProbeError::Unauthorized {
                server: describe.clone(),
            }),
            403 => Err(ProbeError::Forbidden {
                verb: "get".to_string(),
                target: "/version".to_string(),
                message: body.lines().next().unwrap_or_default().to_string(),
            }),
            code => Err(ProbeError::Server {
                code,
                url: "/version".to_string(),
                message: body.lines().next().unwrap_or_default().to_string(),
            }),
        }
    }
}

/// An HTTP `Date` (`Tue, 05 May 2026 10:15:00 GMT`, RFC 9110's IMF-fixdate, an RFC 2822 form).
pub fn parse_http_date(text: &str) -> Option<Timestamp> {
    jiff::fmt::rfc2822::DateTimeParser::new()
        .parse_timestamp(text)
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_date_header_is_read_as_http_sends_it() {
        let at = parse_http_date("Sat, 02 May 2026 10:14:58 GMT");
        assert_eq!(
            at.map(|t| t.to_string()),
            Some("2026-05-02T10:14:58Z".to_string())
        );
        assert_eq!(parse_http_date("yesterday"), None);
    }
}
