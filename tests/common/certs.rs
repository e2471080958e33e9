//! The control plane's certificates, made here: one CA that signs the API server's serving
//! certificate, the loopback kubelet's, and the client certificates (CN is the user, O the
//! groups, as kube-apiserver's `--client-ca-file` authenticator reads them); and the service
//! account signing key.

use std::path::Path;

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose, SanType,
};

/// A certificate and its key, PEM.
#[derive(Clone)]
pub struct Pem {
    pub cert: String,
    pub key: String,
    /// The same, DER (the certificate, the PKCS#8 key).
    pub der: (Vec<u8>, Vec<u8>),
}

/// Everything the plane's TLS needs.
pub struct Certs {
    pub ca: String,
    pub apiserver: Pem,
    pub kubelet: Pem,
    /// `O=system:masters`.
    pub admin: Pem,
    /// No group.
    pub learner: Pem,
    pub service_account_key: String,
    pub service_account_pub: String,
    issuer: Issuer<'static, KeyPair>,
}

type Result<T> = std::result::Result<T, rcgen::Error>;

fn leaf(
    issuer: &Issuer<'_, KeyPair>,
    cn: &str,
    groups: &[&str],
    usage: ExtendedKeyUsagePurpose,
) -> Result<Pem> {
    let key = KeyPair::generate()?;
    let mut params = CertificateParams::new(vec!["localhost".to_string()])?;
    params
        .subject_alt_names
        .push(SanType::IpAddress(std::net::Ipv4Addr::LOCALHOST.into()));
    params.distinguished_name.push(DnType::CommonName, cn);
    for group in groups {
        params
            .distinguished_name
            .push(DnType::OrganizationName, *group);
    }
    params.key_usages = vec![
        KeyUsagePurpose::DigitalSignature,
        KeyUsagePurpose::KeyEncipherment,
    ];
    params.extended_key_usages = vec![usage];
    let cert = params.signed_by(&key, issuer)?;
    Ok(Pem {
        cert: cert.pem(),
        key: key.serialize_pem(),
        der: (cert.der().to_vec(), key.serialize_der()),
    })
}

impl Certs {
    /// New keys and certificates (ECDSA P-256), valid from now.
    pub fn generate() -> Result<Certs> {
        let ca_key = KeyPair::generate()?;
        let mut ca_params = CertificateParams::new(Vec::<String>::new())?;
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params
            .distinguished_name
            .push(DnType::CommonName, "labcheck test CA");
        ca_params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let ca = ca_params.self_signed(&ca_key)?;
        let issuer = Issuer::new(ca_params, ca_key);
        let server = ExtendedKeyUsagePurpose::ServerAuth;
        let client = ExtendedKeyUsagePurpose::ClientAuth;
        let sa = KeyPair::generate()?;
        Ok(Certs {
            ca: ca.pem(),
            apiserver: leaf(&issuer, "kube-apiserver", &[], server.clone())?,
            kubelet: leaf(&issuer, "kubelet", &[], server)?,
            admin: leaf(&issuer, "admin", &["system:masters"], client.clone())?,
            learner: leaf(&issuer, "learner", &[], client)?,
            service_account_key: sa.serialize_pem(),
            service_account_pub: sa.public_key_pem(),
            issuer,
        })
    }

    /// A client certificate for one more user (`groups` as its O; rcgen keeps one value per
    /// attribute, so the last group only).
    pub fn user(&self, name: &str, groups: &[&str]) -> Result<Pem> {
        leaf(
            &self.issuer,
            name,
            groups,
            ExtendedKeyUsagePurpose::ClientAuth,
        )
    }

    /// Write them under `dir/pki/` with the names the plane's flags and kubeconfigs use
    /// (`apiserver.crt` and `apiserver.key` are what `--cert-dir` looks for).
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        let pki = dir.join("pki");
        std::fs::create_dir_all(&pki)?;
        let mut files = vec![
            ("ca.crt".to_string(), self.ca.clone()),
            ("sa.key".to_string(), self.service_account_key.clone()),
            ("sa.pub".to_string(), self.service_account_pub.clone()),
        ];
        for (name, pem) in [
            ("apiserver", &self.apiserver),
            ("admin", &self.admin),
            ("learner", &self.learner),
        ] {
            files.push((format!("{name}.crt"), pem.cert.clone()));
            files.push((format!("{name}.key"), pem.key.clone()));
        }
        for (name, text) in files {
            std::fs::write(pki.join(name), text)?;
        }
        Ok(())
    }
}
