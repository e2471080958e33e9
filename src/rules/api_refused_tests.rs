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
