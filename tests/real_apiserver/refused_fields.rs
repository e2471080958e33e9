//! `labcheck plan --rules`' `api-server-refuses` against the real API server: each manifest, sent
//! as Argo CD sends it (its JSON, keys sorted, `fieldValidation=Strict`; `dryRun=All` so nothing
//! is stored), is refused by kube-apiserver in exactly the words the finding quotes, and each
//! sound neighbour is taken by the server and by labcheck alike.

use labcheck::plan::{Plan, PlanOptions, parse_manifests};
use labcheck::rules::api_refused::as_sent;

use crate::api::call;
use crate::plane::{block_on, plane};

const JOB: &str = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: db-migrate\nspec:\n  backoffLimit: 0\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: migrate\n        image: shop:1.2\n";
const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels: {app: web}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - name: web\n        image: shop:1.2\n        ports: [{containerPort: 8080}]\n        resources: {limits: {cpu: 1, memory: 1Gi}}\n";
const SERVICE: &str = "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  ports:\n  - port: 80\n    targetPort: http\n";
const CONFIG_MAP: &str =
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata:\n  PORT: \"8080\"\n";

/// What the learner wrote: the sound manifests and one wrong field each.
fn cases() -> Vec<(&'static str, String)> {
    vec![
        ("a sound Job", JOB.to_string()),
        ("a sound Deployment", DEPLOYMENT.to_string()),
        ("a sound Service", SERVICE.to_string()),
        ("a sound ConfigMap", CONFIG_MAP.to_string()),
        ("a whole float", JOB.replace("backoffLimit: 0", "backoffLimit: 0.0")),
        ("a quoted backoffLimit", JOB.replace("backoffLimit: 0", "backoffLimit: \"0\"")),
        ("a fractional backoffLimit", JOB.replace("backoffLimit: 0", "backoffLimit: 1.5")),
        ("a backoffLimit past int32", JOB.replace("backoffLimit: 0", "backoffLimit: 99999999999")),
        ("a quoted replicas", DEPLOYMENT.replace("replicas: 2", "replicas: \"2\"")),
        (
            "containers written as a map",
            DEPLOYMENT
                .replace("      - name: web\n        image", "        web:\n          image")
                .replace("        ports:", "          ports:")
                .replace("        resources:", "          resources:"),
        ),
        (
            "a label that is a number",
            DEPLOYMENT.replace("labels: {app: web}\nspec", "labels: {app: web, tier: 1}\nspec"),
        ),
        ("a quoted containerPort", DEPLOYMENT.replace("containerPort: 8080", "containerPort: \"8080\"")),
        ("an image `yes`", DEPLOYMENT.replace("image: shop:1.2", "image: yes")),
        ("a ConfigMap value that is a number", CONFIG_MAP.replace("\"8080\"", "8080")),
        ("a quoted Service port", SERVICE.replace("port: 80", "port: \"80\"")),
        ("Service ports as a map", SERVICE.replace("  - port: 80\n    targetPort: http\n", "    port: 80\n")),
        (
            "an env value that is a number",
            JOB.replace("        image: shop:1.2\n", "        image: shop:1.2\n        env:\n        - name: PORT\n          value: 8080\n"),
        ),
        (
            "a command as one string",
            JOB.replace("        image: shop:1.2\n", "        image: shop:1.2\n        command: php artisan migrate\n"),
        ),
        (
            "two wrong fields (the server names the first in key order)",
            DEPLOYMENT
                .replace("replicas: 2", "replicas: \"2\"")
                .replace("labels: {app: web}\nspec", "labels: {app: web, tier: 1}\nspec"),
        ),
    ]
}

fn collection(api_version: &str, kind: &str) -> String {
    let plural = format!("{}s", kind.to_ascii_lowercase());
    let base = if api_version.contains('/') {
        format!("/apis/{api_version}")
    } else {
        format!("/api/{api_version}")
    };
    format!("{base}/namespaces/default/{plural}?dryRun=All&fieldValidation=Strict")
}

#[test]
fn every_field_labcheck_says_the_api_server_refuses_it_refuses_in_those_words() {
    let plane = plane();
    let mut wrong = Vec::new();
    for (did, yaml) in cases() {
        let objects = parse_manifests("m.yaml", &yaml).expect("the manifest parses");
        let object = &objects[0];
        let plan = Plan::new(objects.clone(), Vec::new(), &PlanOptions::default());
        let finding = labcheck::rules::check(&plan)
            .into_iter()
            .find(|f| f.rule == "api-server-refuses");
        let path = collection(&object.api_version, &object.kind);
        let answer = block_on(call(
            &plane.admin,
            "POST",
            &path,
            Some(&as_sent(&object.body)),
        ))
        .unwrap_or_else(|e| panic!("{did}: {e}"));
        let refused = answer.code == 400 || answer.code == 422;
        let message = answer.body["message"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        match (
            &finding,
            refused && message.contains("cannot be handled as a"),
        ) {
            (None, false) if answer.code < 300 => {}
            (Some(f), true) if f.reason.contains(&message) => {}
            _ => wrong.push(format!(
                "{did}: the server answered {} `{message}`; labcheck found {:?}",
                answer.code,
                finding.map(|f| f.reason)
            )),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
