//! The API server's refusals, as Go's decoder words them, for the fields learners get wrong.

use crate::plan::{Plan, PlanOptions, parse_manifests};
use crate::rules::{Severity, check};

/// The findings of `base` with each `(old, new)` of `edits` made in it.
fn findings_edited(base: &str, edits: &[(&str, &str)]) -> Vec<crate::rules::Finding> {
    let yaml = edits
        .iter()
        .fold(base.to_string(), |yaml, (old, new)| yaml.replace(old, new));
    findings_of(&yaml)
}

fn findings_of(yaml: &str) -> Vec<crate::rules::Finding> {
    let objects = parse_manifests("m.yaml", yaml).expect("manifests parse");
    let plan = Plan::new(objects, Vec::new(), &PlanOptions::default());
    check(&plan)
        .into_iter()
        .filter(|f| f.rule == "api-server-refuses" || f.rule == "fields-not-checked")
        .collect()
}

const JOB: &str = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: db-migrate\nspec:\n  backoffLimit: 0\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: migrate\n        image: shop:1.2\n";
const DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  labels: {app: web}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - name: web\n        image: shop:1.2\n        ports: [{containerPort: 8080}]\n        resources: {limits: {cpu: 1, memory: 1Gi}}\n";

#[test]
fn a_field_of_the_wrong_type_is_refused_in_the_api_servers_words() {
    // (what the learner wrote, the API server's message, or "" for no finding)
    let cases: Vec<(String, &str)> = vec![
        (JOB.to_string(), ""),
        (DEPLOYMENT.to_string(), ""),
        (
            JOB.replace("backoffLimit: 0", "backoffLimit: \"0\""),
            "Job in version \"v1\" cannot be handled as a Job: json: cannot unmarshal string into Go struct field JobSpec.spec.backoffLimit of type int32",
        ),
        (
            JOB.replace("backoffLimit: 0", "backoffLimit: 1.5"),
            "json: cannot unmarshal number 1.5 into Go struct field JobSpec.spec.backoffLimit of type int32",
        ),
        // A whole number written as a float is an integer in the JSON Argo CD sends.
        (JOB.replace("backoffLimit: 0", "backoffLimit: 0.0"), ""),
        (
            JOB.replace("backoffLimit: 0", "backoffLimit: 99999999999"),
            "json: cannot unmarshal number 99999999999 into Go struct field JobSpec.spec.backoffLimit of type int32",
        ),
        (
            DEPLOYMENT.replace("replicas: 2", "replicas: \"2\""),
            "Deployment in version \"v1\" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32",
        ),
        (
            DEPLOYMENT.replace("      - name: web\n        image", "        web:\n          image")
                .replace("        ports:", "          ports:")
                .replace("        resources:", "          resources:"),
            "json: cannot unmarshal object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container",
        ),
        (
            DEPLOYMENT.replace("labels: {app: web}\nspec", "labels: {app: web, tier: 1}\nspec"),
            "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string",
        ),
        (
            DEPLOYMENT.replace("containerPort: 8080", "containerPort: \"8080\""),
            "json: cannot unmarshal string into Go struct field ContainerPort.spec.template.spec.containers.ports.containerPort of type int32",
        ),
        // YAML 1.1, as Kubernetes reads it: an unquoted `yes` is a boolean.
        (
            DEPLOYMENT.replace("image: shop:1.2", "image: yes"),
            "json: cannot unmarshal bool into Go struct field Container.spec.template.spec.containers.image of type string",
        ),
        (
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata:\n  PORT: 8080\n".to_string(),
            "ConfigMap in version \"v1\" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string",
        ),
        (
            "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  ports:\n  - port: \"80\"\n    targetPort: http\n".to_string(),
            "json: cannot unmarshal string into Go struct field ServicePort.spec.ports.port of type int32",
        ),
        (
            "apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  ports: {port: 80}\n".to_string(),
            "json: cannot unmarshal object into Go struct field ServiceSpec.spec.ports of type []v1.ServicePort",
        ),
        (
            JOB.replace("        image: shop:1.2\n", "        image: shop:1.2\n        env:\n        - name: PORT\n          value: 8080\n"),
            "json: cannot unmarshal number into Go struct field EnvVar.spec.template.spec.containers.env.value of type string",
        ),
        (
            JOB.replace("        image: shop:1.2\n", "        image: shop:1.2\n        command: php artisan migrate\n"),
            "json: cannot unmarshal string into Go struct field Container.spec.template.spec.containers.command of type []string",
        ),
    ];
    for (yaml, says) in &cases {
        let found = findings_of(yaml);
        if says.is_empty() {
            assert!(found.is_empty(), "{yaml}: {found:?}");
            continue;
        }
        assert_eq!(found.len(), 1, "{yaml}: {found:?}");
        assert_eq!(found[0].severity, Severity::Error);
        assert_has(&found[0].reason, &[says]);
    }
}

#[test]
fn every_refused_field_is_named_the_first_in_key_order_as_the_api_server_reports_it() {
    let found = findings_edited(
        DEPLOYMENT,
        &[
            ("replicas: 2", "replicas: \"2\""),
            (
                "labels: {app: web}\nspec",
                "labels: {app: web, tier: 1}\nspec",
            ),
        ],
    );
    assert_eq!(found.len(), 1, "{found:?}");
    // `metadata` sorts before `spec`: the server names the label.
    assert_has(
        &found[0].reason,
        &["ObjectMeta.metadata.labels", "`spec.replicas` (a string)"],
    );
    assert_has(&found[0].fix, &["`spec.replicas` as a number, unquoted"]);
}

#[test]
fn a_refused_hook_is_said_never_to_run() {
    let found = findings_edited(
        JOB,
        &[
            ("backoffLimit: 0", "backoffLimit: \"0\""),
            (
                "  name: db-migrate\n",
                "  name: db-migrate\n  annotations:\n    argocd.argoproj.io/hook: PreSync\n",
            ),
        ],
    );
    assert_has(&found[0].reason, &["It is a hook, so it never runs"]);
}

#[test]
fn a_built_in_kind_labcheck_has_no_type_for_is_named_and_a_custom_resource_is_not() {
    let yaml = "apiVersion: batch/v1beta1\nkind: CronJob\nmetadata: {name: old}\n---\napiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: db}\nspec: {refreshInterval: 1}\n";
    let found = findings_of(yaml);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].rule, "fields-not-checked");
    assert_eq!(found[0].severity, Severity::Note);
    assert_eq!(found[0].object, "CronJob/old");
}

#[test]
fn every_application_whose_refs_argo_cd_cannot_resolve_is_an_error_in_its_words() {
    let app = |name: &str, sources: &str| {
        format!(
            "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {{name: {name}, namespace: argocd}}\nspec:\n  sources:\n{sources}  destination: {{namespace: shop}}\n---\n"
        )
    };
    let chart = "  - repoURL: https://charts.example.com\n    chart: shop\n    targetRevision: 1.0.0\n    helm:\n      valueFiles: [$values/envs/dev.yaml]\n";
    let git_ref = |name: &str| {
        format!(
            "  - repoURL: https://git.example.com/shop-config.git\n    targetRevision: main\n    ref: {name}\n"
        )
    };
    let chart_ref = "  - repoURL: https://charts.example.com\n    chart: values\n    targetRevision: 1.0.0\n    ref: values\n";
    // (the Application's sources, Argo CD's words or "" for none)
    let cases: Vec<(String, &str)> = vec![
        (format!("{chart}{}", git_ref("values")), ""),
        (
            chart.to_string(),
            "`source referenced \"$values\", but no source has a 'ref' field defined`",
        ),
        (
            format!("{chart}{}", git_ref("valuez")),
            "Failed to load target state: failed to generate manifest for source 1 of 2: rpc error: code = Unknown desc = source referenced \"$values\", which is not one of the available sources ($valuez)",
        ),
        (
            format!("{chart}{chart_ref}"),
            "source has a 'chart' field defined, but Helm charts are not yet not supported for 'ref' sources",
        ),
        (
            format!("{chart}{}", git_ref("values.dev")),
            "Failed to load target state: failed to get ref sources: sources.ref values.dev cannot contain any special characters except '_' and '-'",
        ),
        (
            format!("{chart}{}{}", git_ref("values"), git_ref("values")),
            "invalid sources: multiple sources had the same `ref` key",
        ),
    ];
    for (sources, says) in &cases {
        // Beside a sound Application, so each is judged on its own.
        let yaml = format!(
            "{}{}",
            app("sound", &format!("{chart}{}", git_ref("values"))),
            app("shop", sources)
        );
        let objects = parse_manifests("apps.yaml", &yaml).expect("manifests parse");
        let plan = Plan::new(objects, Vec::new(), &PlanOptions::default());
        let found: Vec<_> = check(&plan)
            .into_iter()
            .filter(|f| f.rule == "source-ref-unresolved")
            .collect();
        if says.is_empty() {
            assert!(found.is_empty(), "{sources}: {found:?}");
            continue;
        }
        assert_eq!(found.len(), 1, "{sources}: {found:?}");
        assert_eq!(found[0].object, "Application/shop");
        assert_eq!(found[0].severity, Severity::Error);
        assert_has(&found[0].reason, &[says]);
    }
}

/// Assert that `text` holds each of `words`.
fn assert_has(text: &str, words: &[&str]) {
    for w in words {
        assert!(text.contains(w), "{w}\nnot in\n{text}");
    }
}

#[test]
fn a_field_its_kind_does_not_have_is_refused_by_strict_field_validation_in_the_servers_words() {
    let container = "        image: shop:1.2\n";
    // (what the learner wrote, the API server's words, or "" for no finding)
    let cases: Vec<(String, &str)> = vec![
        (JOB.to_string(), ""),
        (
            JOB.replace("backoffLimit: 0", "backoffLimitt: 0"),
            "Job in version \"v1\" cannot be handled as a Job: strict decoding error: unknown field \"spec.backoffLimitt\"",
        ),
        (
            DEPLOYMENT.replace(
                container,
                "        image: shop:1.2\n        imagePullPolise: Always\n",
            ),
            "Deployment in version \"v1\" cannot be handled as a Deployment: strict decoding error: unknown field \"spec.template.spec.containers[0].imagePullPolise\"",
        ),
        // Field names are case-sensitive, as Go's strict decoder reads them.
        (
            DEPLOYMENT.replace(
                container,
                "        image: shop:1.2\n        ImagePullPolicy: Always\n",
            ),
            "unknown field \"spec.template.spec.containers[0].ImagePullPolicy\"",
        ),
        // Two, in key order: `metadata` before `spec`.
        (
            JOB.replace("backoffLimit: 0", "backoffLimitt: 0").replace(
                "  name: db-migrate\n",
                "  name: db-migrate\n  annotation: {a: b}\n",
            ),
            "strict decoding error: unknown field \"metadata.annotation\", unknown field \"spec.backoffLimitt\"",
        ),
        // An unknown key is unknown even when it holds nothing.
        (
            JOB.replace(
                "backoffLimit: 0",
                "backoffLimit: 0\n  ttlSecondsAfterFinish: null",
            ),
            "unknown field \"spec.ttlSecondsAfterFinish\"",
        ),
        // A known field left empty is no unknown field.
        (
            JOB.replace(
                "backoffLimit: 0",
                "backoffLimit: 0\n  ttlSecondsAfterFinished: null\n  suspend: null",
            )
            .replace(
                "  name: db-migrate\n",
                "  name: db-migrate\n  creationTimestamp: null\n",
            ),
            "",
        ),
        // The wrong type is refused first, alone: the server stops decoding there.
        (
            JOB.replace("backoffLimit: 0", "backoffLimit: \"0\"\n  backoffLimitt: 0"),
            "cannot unmarshal string into Go struct field JobSpec.spec.backoffLimit of type int32`",
        ),
    ];
    for (yaml, says) in &cases {
        let found = findings_of(yaml);
        if says.is_empty() {
            assert!(found.is_empty(), "{yaml}: {found:?}");
            continue;
        }
        assert_eq!(found.len(), 1, "{yaml}: {found:?}");
        assert_eq!(found[0].rule, "api-server-refuses");
        assert!(
            found[0].reason.contains(says),
            "{says}\nnot in\n{}",
            found[0].reason
        );
    }
}

#[test]
fn validate_false_on_the_object_or_the_application_lets_the_server_drop_an_unknown_field() {
    let typo = JOB.replace("backoffLimit: 0", "backoffLimitt: 0");
    let annotated = typo.replace(
        "  name: db-migrate\n",
        "  name: db-migrate\n  annotations:\n    argocd.argoproj.io/sync-options: Validate=false\n",
    );
    assert_eq!(findings_of(&annotated), vec![]);
    let app = parse_manifests(
        "app.yaml",
        "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: shop}\nspec:\n  syncPolicy:\n    syncOptions: [Validate=false]\n",
    )
    .expect("the Application parses");
    let objects = parse_manifests("m.yaml", &typo).expect("manifests parse");
    let options = PlanOptions {
        app: crate::plan::app::AppSettings::of(&app[0]),
        ..PlanOptions::default()
    };
    let plan = Plan::new(objects.clone(), Vec::new(), &options);
    let found: Vec<_> = check(&plan)
        .into_iter()
        .filter(|f| f.rule == "api-server-refuses")
        .collect();
    assert_eq!(found, vec![]);
    // Neighbour: the same Job without the option is refused.
    let plan = Plan::new(objects, Vec::new(), &PlanOptions::default());
    assert!(check(&plan).iter().any(|f| f.rule == "api-server-refuses"));
    // Validate=false turns off field validation, not the API's own validation.
    let no_policy = annotated.replace("      restartPolicy: Never\n", "");
    let found = findings_of(&no_policy);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].reason.contains("restartPolicy: Required value"));
}

#[test]
fn a_value_the_apis_validation_refuses_is_an_error_in_its_words() {
    let deployment_container = "      - name: web\n        image: shop:1.2\n";
    // (what the learner wrote, the API server's words, or "" for no finding)
    let cases: Vec<(String, &str)> = vec![
        (
            JOB.replace("      restartPolicy: Never\n", ""),
            "`Job.batch \"db-migrate\" is invalid: spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\"`",
        ),
        (
            JOB.replace("restartPolicy: Never", "restartPolicy: Always"),
            "spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\"",
        ),
        (JOB.replace("restartPolicy: Never", "restartPolicy: OnFailure"), ""),
        (
            JOB.replace("        image: shop:1.2\n", ""),
            "`Job.batch \"db-migrate\" is invalid: spec.template.spec.containers[0].image: Required value`",
        ),
        (
            DEPLOYMENT.replace(deployment_container, "      - image: shop:1.2\n"),
            "`Deployment.apps \"web\" is invalid: spec.template.spec.containers[0].name: Required value`",
        ),
        // Several: all of them, in brackets, in the server's order.
        (
            JOB.replace("      restartPolicy: Never\n", "")
                .replace("      - name: migrate\n        image: shop:1.2\n", "      - name: migrate\n"),
            "is invalid: [spec.template.spec.containers[0].image: Required value, spec.template.spec.restartPolicy: Required value: valid values: \"OnFailure\", \"Never\"]`",
        ),
        (
            "apiVersion: v1\nkind: Pod\nmetadata: {name: one-off}\nspec:\n  containers: []\n".to_string(),
            "`Pod \"one-off\" is invalid: spec.containers: Required value`",
        ),
        // A Pod may restart Always; the defaults give it that.
        (
            "apiVersion: v1\nkind: Pod\nmetadata: {name: one-off}\nspec:\n  containers: [{name: a, image: b}]\n".to_string(),
            "",
        ),
        // A kind with no pod template is not read for these.
        ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\n".to_string(), ""),
    ];
    for (yaml, says) in &cases {
        let found = findings_of(yaml);
        if says.is_empty() {
            assert!(found.is_empty(), "{yaml}: {found:?}");
            continue;
        }
        assert_eq!(found.len(), 1, "{yaml}: {found:?}");
        assert!(
            found[0].reason.contains(says),
            "{says}\nnot in\n{}",
            found[0].reason
        );
    }
}

#[test]
fn under_server_side_apply_a_field_the_schema_lacks_is_refused_in_the_typed_patchs_words() {
    let ssa = |yaml: &str, options: &str| {
        yaml.replacen(
            "  name: ",
            &format!("  namespace: shop\n  annotations:\n    argocd.argoproj.io/sync-options: {options}\n  name: "),
            1,
        )
    };
    let typo = JOB.replace(
        "        image: shop:1.2\n",
        "        image: shop:1.2\n        imagePullPolise: Always\n",
    );
    // (the sync options, the server's words)
    let cases = [
        (
            "ServerSideApply=true",
            "`failed to create typed patch object (shop/db-migrate; batch/v1, Kind=Job): .spec.template.spec.containers[name=\"migrate\"].imagePullPolise: field not declared in schema`",
        ),
        // `Validate=false` asks for no field validation; a typed patch cannot hold the field.
        (
            "ServerSideApply=true,Validate=false",
            "field not declared in schema",
        ),
    ];
    for (options, says) in cases {
        let found = findings_of(&ssa(&typo, options));
        assert_eq!(found.len(), 1, "{options}: {found:?}");
        assert!(
            found[0].reason.contains(says),
            "{says}\nnot in\n{}",
            found[0].reason
        );
    }
    // Two: one per line after `errors:`, in key order.
    let two = ssa(
        &typo.replace("backoffLimit: 0", "backoffLimitt: 0"),
        "ServerSideApply=true",
    );
    let found = findings_of(&two);
    assert!(
        found[0].reason.contains(": errors:\n  .spec.backoffLimitt: field not declared in schema\n  .spec.template.spec.containers[name=\"migrate\"].imagePullPolise: field not declared in schema`"),
        "{}",
        found[0].reason
    );
}

#[test]
fn every_kind_read_written_with_many_of_its_fields_is_taken() {
    // No field the kind has is taken for one it lacks (the real API server takes each too:
    // `tests/real_apiserver/refused_fields.rs`).
    let found = findings_of(include_str!(
        "../../tests/fixtures/api-refused/sound-kinds.yaml"
    ));
    assert_eq!(found, vec![]);
}
