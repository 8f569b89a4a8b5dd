//! TLS for `tuios web`: a certificate and key given by the user, or one generated once,
//! self-signed, and kept 0600 in the state directory.

use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

use super::auth;

/// Where the certificate and key come from.
#[derive(Debug, Clone)]
pub enum CertSource {
    Given {
        cert: PathBuf,
        key: PathBuf,
    },
    /// Generated into (or reused from) these files.
    SelfSigned {
        cert: PathBuf,
        key: PathBuf,
    },
}

impl CertSource {
    pub fn cert_path(&self) -> &Path {
        match self {
            CertSource::Given { cert, .. } | CertSource::SelfSigned { cert, .. } => cert,
        }
    }
}

/// Build the rustls configuration; a self-signed pair is made first if missing, with the
/// loopback names, the bound address and this machine's host name in it.
pub fn server_config(source: &CertSource, bind: IpAddr) -> Result<rustls::ServerConfig, String> {
    let (cert_pem, key_pem) = match source {
        CertSource::Given { cert, key } => {
            let cert_pem = std::fs::read(cert)
                .map_err(|e| format!("cannot read the certificate {}: {e}", cert.display()))?;
            // The key gets the same care as the token: ours, 0600, no link followed.
            let key_pem = auth::read_private(key)?
                .ok_or_else(|| format!("the key file {} does not exist", key.display()))?;
            (cert_pem, key_pem.into_bytes())
        }
        CertSource::SelfSigned { cert, key } => self_signed(cert, key, bind)?,
    };
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&cert_pem)
        .collect::<Result<_, _>>()
        .map_err(|e| {
            format!(
                "cannot parse the certificate {}: {e}",
                source.cert_path().display()
            )
        })?;
    if certs.is_empty() {
        return Err(format!(
            "no certificate in {} (PEM, -----BEGIN CERTIFICATE----- expected)",
            source.cert_path().display()
        ));
    }
    let key = PrivateKeyDer::from_pem_slice(&key_pem)
        .map_err(|e| format!("cannot parse the private key (PEM expected): {e}"))?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("cannot set up TLS: {e}"))?
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .map_err(|e| format!("the certificate and key cannot be used together: {e}"))
}

/// The stored self-signed pair, made now if either file is missing.
fn self_signed(cert: &Path, key: &Path, bind: IpAddr) -> Result<(Vec<u8>, Vec<u8>), String> {
    if let (Some(k), true) = (auth::read_private(key)?, cert.exists()) {
        let c = std::fs::read(cert)
            .map_err(|e| format!("cannot read the certificate {}: {e}", cert.display()))?;
        return Ok((c, k.into_bytes()));
    }
    let mut names = vec![
        "localhost".to_string(),
        "127.0.0.1".to_string(),
        "::1".to_string(),
    ];
    if !bind.is_unspecified() && !bind.is_loopback() {
        names.push(bind.to_string());
    }
    // The kernel's host name (Linux), so `https://NAME:PORT` matches the certificate too.
    if let Ok(host) = std::fs::read_to_string("/proc/sys/kernel/hostname") {
        let host = host.trim();
        if !host.is_empty() && !names.iter().any(|n| n == host) {
            names.push(host.to_string());
        }
    }
    let made = rcgen::generate_simple_self_signed(names)
        .map_err(|e| format!("cannot make a self-signed certificate: {e}"))?;
    let key_pem = made.signing_key.serialize_pem();
    let cert_pem = made.cert.pem();
    auth::write_private(key, key_pem.as_bytes())?;
    auth::write_private(cert, cert_pem.as_bytes())?;
    tracing::info!(cert = %cert.display(), "made a self-signed certificate for tuios web");
    Ok((cert_pem.into_bytes(), key_pem.into_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    #[test]
    fn a_self_signed_pair_is_made_once_and_kept_private() {
        let dir = tempfile::tempdir().unwrap();
        let source = CertSource::SelfSigned {
            cert: dir.path().join("c.pem"),
            key: dir.path().join("k.pem"),
        };
        server_config(&source, "127.0.0.1".parse().unwrap()).unwrap();
        let key_meta = std::fs::metadata(dir.path().join("k.pem")).unwrap();
        assert_eq!(key_meta.mode() & 0o777, 0o600);
        let first = std::fs::read(dir.path().join("c.pem")).unwrap();
        server_config(&source, "127.0.0.1".parse().unwrap()).unwrap();
        assert_eq!(std::fs::read(dir.path().join("c.pem")).unwrap(), first);
    }

    #[test]
    fn a_missing_given_key_is_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("c.pem"), "").unwrap();
        let err = server_config(
            &CertSource::Given {
                cert: dir.path().join("c.pem"),
                key: dir.path().join("nope.pem"),
            },
            "127.0.0.1".parse().unwrap(),
        )
        .unwrap_err();
        assert!(err.contains("nope.pem"), "{err}");
    }
}
