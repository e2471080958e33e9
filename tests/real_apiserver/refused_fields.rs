//! `labcheck plan --rules`' `api-server-refuses` against the real API server: each manifest, sent
//! as Argo CD sends it (its JSON, keys sorted, `fieldValidation=Strict`, or `Ignore` under
//! `Validate=false`; `dryRun=All` so nothing is stored), is refused by kube-apiserver in exactly
//! the words the finding quotes (a field of the wrong type, a field the kind does not have, a
//! value validation refuses), and each sound neighbour is taken by the server and by labcheck
//! alike.

use labcheck::plan::{Object, Plan, PlanOptions, parse_manifests};
use labcheck::rules::Finding;
use labcheck::rules::api_refused::as_sent;

use crate::api::call;
use crate::plane::{block_on, plane};

const JOB: &str = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: db-migrate\nspec:\n  backoffLimit: 0\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: migrate\n        image: shop:1.2\n";
const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels: {app: web}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - name: web\n        image: shop:1.2\n        ports: [{containerPort: 8080}]\n        resources: {limits: {cpu: 1, memory: 1Gi}}\n";
const SERVICE: &str = "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  ports:\n  - port: 80\n    targetPort: http\n";
const CONFIG_MAP: &str =
    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata:\n  PORT: \"8080\"\n";

/// The one object `yaml` holds, and labcheck's `api-server-refuses` finding on it if there is one.
fn refusal_found(yaml: &str) -> (Object, Option<Finding>) {
    let objects = parse_manifests("m.yaml", yaml).expect("the manifest parses");
    let object = objects[0].clone();
    let plan = Plan::new(objects, Vec::new(), &PlanOptions::default());
    let finding = labcheck::rules::check(&plan)
        .into_iter()
        .find(|f| f.rule == "api-server-refuses");
    (object, finding)
}

/// What the learner wrote: the sound manifests and one wrong field each.
fn cases() -> Vec<(&'static str, String)> {
    let annotated = |yaml: &str, options: &str| {
        yaml.replacen(
            "  name: ",
            &format!("  annotations:\n    argocd.argoproj.io/sync-options: {options}\n  name: "),
            1,
        )
    };
    vec![
        // A field the kind does not have: strict field validation, which Argo CD asks for.
        ("a misspelt backoffLimit", JOB.replace("backoffLimit: 0", "backoffLimitt: 0")),
        (
            "a misspelt imagePullPolicy",
            DEPLOYMENT.replace("        image: shop:1.2\n", "        image: shop:1.2\n        imagePullPolise: Always\n"),
        ),
        (
            "a field in another case",
            DEPLOYMENT.replace("        image: shop:1.2\n", "        image: shop:1.2\n        ImagePullPolicy: Always\n"),
        ),
        (
            "two unknown fields, metadata's first",
            JOB.replace("backoffLimit: 0", "backoffLimitt: 0")
                .replace("  name: db-migrate\n", "  name: db-migrate\n  annotation: {a: b}\n"),
        ),
        (
            "an unknown field that holds nothing",
            JOB.replace("backoffLimit: 0", "backoffLimit: 0\n  ttlSecondsAfterFinish: null"),
        ),
        (
            "known fields left empty",
            JOB.replace("backoffLimit: 0", "backoffLimit: 0\n  ttlSecondsAfterFinished: null\n  suspend: null")
                .replace("  name: db-migrate\n", "  name: db-migrate\n  creationTimestamp: null\n"),
        ),
        (
            "a misspelt field and a wrong type (the type is refused first)",
            JOB.replace("backoffLimit: 0", "backoffLimit: \"0\"\n  backoffLimitt: 0"),
        ),
        (
            "a misspelt field with Validate=false (sent with fieldValidation=Ignore)",
            annotated(&JOB.replace("backoffLimit: 0", "backoffLimitt: 0"), "Validate=false"),
        ),
        // Values the API's validation refuses.
        ("a Job without restartPolicy", JOB.replace("      restartPolicy: Never\n", "")),
        ("a Job with restartPolicy Always", JOB.replace("restartPolicy: Never", "restartPolicy: Always")),
        ("a Job with restartPolicy OnFailure", JOB.replace("restartPolicy: Never", "restartPolicy: OnFailure")),
        ("a Job with restartPolicy Sometimes", JOB.replace("restartPolicy: Never", "restartPolicy: Sometimes")),
        ("a container without image", JOB.replace("        image: shop:1.2\n", "")),
        (
            "a container without name",
            DEPLOYMENT.replace("      - name: web\n        image: shop:1.2\n", "      - image: shop:1.2\n"),
        ),
        (
            "no restartPolicy and no image (the server lists both)",
            JOB.replace("      restartPolicy: Never\n", "").replace("        image: shop:1.2\n", ""),
        ),
        (
            "a Pod without containers",
            "apiVersion: v1\nkind: Pod\nmetadata: {name: one-off}\nspec:\n  containers: []\n".to_string(),
        ),
        (
            "a CronJob whose Job has no restartPolicy",
            "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: nightly}\nspec:\n  schedule: \"0 3 * * *\"\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          containers: [{name: a, image: b}]\n".to_string(),
        ),
        (
            "Validate=false and no restartPolicy (validation still runs)",
            annotated(&JOB.replace("      restartPolicy: Never\n", ""), "Validate=false"),
        ),
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

/// Where Argo CD's apply creates the object: strict field validation unless `Validate=false`
/// (gitops-engine `resource_ops.go` `newApplyOptions`), as a dry run so nothing is stored.
fn collection(api_version: &str, kind: &str, validate: bool) -> String {
    let lower = kind.to_ascii_lowercase();
    let plural = if let Some(stem) = lower.strip_suffix('y') {
        format!("{stem}ies")
    } else if lower.ends_with('s') {
        format!("{lower}es")
    } else {
        format!("{lower}s")
    };
    let base = if api_version.contains('/') {
        format!("/apis/{api_version}")
    } else {
        format!("/api/{api_version}")
    };
    let validation = if validate { "Strict" } else { "Ignore" };
    format!("{base}/namespaces/default/{plural}?dryRun=All&fieldValidation={validation}")
}

#[test]
fn every_field_labcheck_says_the_api_server_refuses_it_refuses_in_those_words() {
    let plane = plane();
    let mut wrong = Vec::new();
    for (did, yaml) in cases() {
        let (object, finding) = refusal_found(&yaml);
        let validate = !object.sync_option_words().contains(&"Validate=false");
        let path = collection(&object.api_version, &object.kind, validate);
        let answer = block_on(call(
            &plane.admin,
            "POST",
            &path,
            Some(&as_sent(&object.body)),
        ))
        .unwrap_or_else(|e| panic!("{did}: {e}"));
        let refused = answer.code == 400 || answer.code == 422;
        // What the learner wrote decides, not labcheck: every case but these is refused.
        let sound = [
            "a sound",
            "a whole float",
            "left empty",
            "OnFailure",
            "(sent with fieldValidation=Ignore)",
        ]
        .iter()
        .any(|word| did.contains(word));
        if refused == sound {
            wrong.push(format!(
                "{did}: the server answered {} (expected {})",
                answer.code,
                if sound { "taken" } else { "refused" }
            ));
        }
        let message = answer.body["message"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        // Refused in decoding ("cannot be handled as a"), strict decoding (the same sentence)
        // or validation ("is invalid"): labcheck quotes the whole message, byte for byte.
        match (&finding, refused) {
            (None, false) if answer.code < 300 => {}
            (Some(f), true) if f.reason.contains(&format!("`{message}`")) => {}
            _ => wrong.push(format!(
                "{did}: the server answered {} `{message}`; labcheck found {:?}",
                answer.code,
                finding.map(|f| f.reason)
            )),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Argo CD's server-side apply (`ServerSideApply=true`): `kubectl apply --server-side`, a PATCH of
/// the object as `application/apply-patch+yaml` by the `argocd-controller` field manager, forced,
/// with strict field validation unless `Validate=false`.
/// Whether labcheck's `reason` quotes the server's typed-patch refusal (`failed to create typed
/// patch object (…)`) and every field the server's `message` says is not in the schema.
fn names_what_the_server_names(reason: &str, message: &str) -> bool {
    let Some((head, _)) = message.split_once("): ") else {
        return false;
    };
    let fields: Vec<&str> = message
        .lines()
        .map(|line| {
            line.trim()
                .rsplit_once("): ")
                .map_or(line.trim(), |(_, r)| r)
        })
        .filter(|line| line.ends_with("field not declared in schema"))
        .collect();
    reason.contains(head) && !fields.is_empty() && fields.iter().all(|f| reason.contains(f))
}

#[test]
fn a_field_the_schema_lacks_under_server_side_apply_is_refused_in_the_apply_paths_words() {
    let plane = plane();
    let ssa = |yaml: &str, options: &str| {
        yaml.replacen(
            "  name: ",
            &format!("  namespace: default\n  annotations:\n    argocd.argoproj.io/sync-options: {options}\n  name: "),
            1,
        )
    };
    // (what the learner wrote, whether the server takes it)
    let cases = [
        (ssa(JOB, "ServerSideApply=true"), true),
        (ssa(&JOB.replace("backoffLimit: 0", "backoffLimitt: 0"), "ServerSideApply=true"), false),
        (
            ssa(
                &JOB.replace(
                    "        image: shop:1.2\n",
                    "        image: shop:1.2\n        imagePullPolise: Always\n        env: [{name: A, valu: b}]\n",
                ),
                "ServerSideApply=true",
            ),
            false,
        ),
        (
            ssa(
                &JOB.replace("backoffLimit: 0", "backoffLimitt: 0")
                    .replace("  name: db-migrate\n", "  name: db-migrate\n  annotation: {a: b}\n"),
                "ServerSideApply=true",
            ),
            false,
        ),
        (
            // Validate=false sends `fieldValidation=Ignore`; a typed patch still cannot hold it.
            ssa(&JOB.replace("backoffLimit: 0", "backoffLimitt: 0"), "ServerSideApply=true,Validate=false"),
            false,
        ),
    ];
    let mut wrong = Vec::new();
    for (yaml, taken) in cases {
        let (object, finding) = refusal_found(&yaml);
        let validation = if object.sync_option_words().contains(&"Validate=false") {
            "Ignore"
        } else {
            "Strict"
        };
        let path = format!(
            "/apis/batch/v1/namespaces/default/jobs/{}?dryRun=All&fieldManager=argocd-controller&force=true&fieldValidation={validation}",
            object.name
        );
        let answer = block_on(crate::api::call_with(
            &plane.admin,
            "PATCH",
            &path,
            Some(&as_sent(&object.body)),
            "application/apply-patch+yaml",
            "application/json",
        ))
        .expect("an answer");
        let message = answer.body["message"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        // The server lists a typed patch's errors in no fixed order, and sometimes only the
        // first it meets (the same object answers with one field, then with both): each field
        // it names must be one labcheck names, in the same words.
        let ok = match (&finding, answer.code < 300) {
            (None, true) => taken,
            (Some(f), false) => !taken && names_what_the_server_names(&f.reason, &message),
            _ => false,
        };
        if !ok {
            wrong.push(format!(
                "{yaml}: the server answered {} `{message}`; labcheck found {:?}",
                answer.code,
                finding.map(|f| f.reason)
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn every_kind_read_written_with_many_of_its_fields_is_taken_by_the_server_and_by_labcheck() {
    let plane = plane();
    let yaml = include_str!("../fixtures/api-refused/sound-kinds.yaml");
    let objects = parse_manifests("sound-kinds.yaml", yaml).expect("the manifests parse");
    let plan = Plan::new(objects.clone(), Vec::new(), &PlanOptions::default());
    let found: Vec<_> = labcheck::rules::check(&plan)
        .into_iter()
        .filter(|f| f.rule == "api-server-refuses" || f.rule == "fields-not-checked")
        .collect();
    assert!(found.is_empty(), "{found:?}");
    let mut refused = Vec::new();
    for object in &objects {
        let path = collection(&object.api_version, &object.kind, true);
        let answer = block_on(call(
            &plane.admin,
            "POST",
            &path,
            Some(&as_sent(&object.body)),
        ))
        .unwrap_or_else(|e| panic!("{}: {e}", object.reference()));
        if answer.code >= 300 {
            refused.push(format!(
                "{}: {} {}",
                object.reference(),
                answer.code,
                answer.body["message"]
            ));
        }
    }
    assert!(refused.is_empty(), "{}", refused.join("\n"));
    assert_eq!(objects.len(), 17, "every kind the file holds was sent");
}
