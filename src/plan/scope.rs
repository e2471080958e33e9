//! Which objects are cluster-scoped. Argo CD asks the cluster (`AC: controller/state.go:582`,
//! `IsNamespacedOrUnknown`): a cluster-scoped object loses any namespace it was written with, a
//! namespaced one without a namespace gets the destination's, and a kind the cluster does not
//! know counts as namespaced. labcheck has no cluster: it knows Kubernetes' own cluster-scoped
//! kinds (`kubectl api-resources --namespaced=false` of Kubernetes 1.33), those of a few widely
//! used projects, and any CRD in the input (`spec.scope: Cluster`).

use crate::plan::object::Object;

/// Cluster-scoped kinds by (group, kind).
const CLUSTER_SCOPED: &[(&str, &str)] = &[
    ("", "Namespace"),
    ("", "Node"),
    ("", "PersistentVolume"),
    ("", "ComponentStatus"),
    ("rbac.authorization.k8s.io", "ClusterRole"),
    ("rbac.authorization.k8s.io", "ClusterRoleBinding"),
    ("apiextensions.k8s.io", "CustomResourceDefinition"),
    ("apiregistration.k8s.io", "APIService"),
    ("storage.k8s.io", "StorageClass"),
    ("storage.k8s.io", "CSIDriver"),
    ("storage.k8s.io", "CSINode"),
    ("storage.k8s.io", "VolumeAttachment"),
    ("storage.k8s.io", "VolumeAttributesClass"),
    ("networking.k8s.io", "IngressClass"),
    ("networking.k8s.io", "IPAddress"),
    ("networking.k8s.io", "ServiceCIDR"),
    ("scheduling.k8s.io", "PriorityClass"),
    ("node.k8s.io", "RuntimeClass"),
    ("certificates.k8s.io", "CertificateSigningRequest"),
    ("certificates.k8s.io", "ClusterTrustBundle"),
    ("flowcontrol.apiserver.k8s.io", "FlowSchema"),
    ("flowcontrol.apiserver.k8s.io", "PriorityLevelConfiguration"),
    (
        "admissionregistration.k8s.io",
        "ValidatingWebhookConfiguration",
    ),
    (
        "admissionregistration.k8s.io",
        "MutatingWebhookConfiguration",
    ),
    ("admissionregistration.k8s.io", "ValidatingAdmissionPolicy"),
    (
        "admissionregistration.k8s.io",
        "ValidatingAdmissionPolicyBinding",
    ),
    ("admissionregistration.k8s.io", "MutatingAdmissionPolicy"),
    (
        "admissionregistration.k8s.io",
        "MutatingAdmissionPolicyBinding",
    ),
    ("resource.k8s.io", "DeviceClass"),
    ("resource.k8s.io", "ResourceSlice"),
    ("storagemigration.k8s.io", "StorageVersionMigration"),
    ("policy", "PodSecurityPolicy"),
    // Projects a course cluster often runs.
    ("cert-manager.io", "ClusterIssuer"),
    ("external-secrets.io", "ClusterSecretStore"),
    ("external-secrets.io", "ClusterExternalSecret"),
    ("argoproj.io", "ClusterWorkflowTemplate"),
    ("gateway.networking.k8s.io", "GatewayClass"),
];

/// The cluster-scoped kinds an input's CRDs declare, as (group, kind).
pub fn declared(objects: &[Object]) -> Vec<(String, String)> {
    objects
        .iter()
        .filter(|o| o.kind == "CustomResourceDefinition" && o.group() == "apiextensions.k8s.io")
        .filter(|o| o.get(&["spec", "scope"]).and_then(|v| v.as_str()) == Some("Cluster"))
        .filter_map(|o| {
            let group = o.get(&["spec", "group"])?.as_str()?;
            let kind = o.get(&["spec", "names", "kind"])?.as_str()?;
            Some((group.to_string(), kind.to_string()))
        })
        .collect()
}

/// Whether `o` is cluster-scoped, given the input's CRDs.
pub fn cluster_scoped(o: &Object, declared: &[(String, String)]) -> bool {
    CLUSTER_SCOPED
        .iter()
        .any(|(g, k)| *g == o.group() && *k == o.kind)
        || declared.iter().any(|(g, k)| g == o.group() && *k == o.kind)
}
