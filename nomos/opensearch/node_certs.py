"""The certificates of a secured local node, made with the ``cryptography`` library (no openssl shell-outs).

One root CA signs a node certificate (HTTP and transport TLS; SAN 127.0.0.1, ::1 and localhost, since the node
listens on loopback only) and an admin certificate (the ``plugins.security.authcz.admin_dn`` identity that
``securityadmin.sh`` uses to change the security configuration later). Keys are PKCS#8 PEM without a passphrase,
the form the security plugin reads; they are written 0600, certificates 0644. Made once per node folder and kept:
a restart reuses them, so clients keep trusting the same CA.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
from dataclasses import dataclass
from pathlib import Path

from nomos.errors import ConfigError

CA_SUBJECT = "CN=nomos-local-ca,O=nomos"
NODE_SUBJECT = "CN=nomos-node,O=nomos"
ADMIN_SUBJECT = "CN=nomos-admin,O=nomos"
VALID_DAYS = 825  # the longest validity browsers and most TLS stacks accept for a leaf certificate
CA_VALID_DAYS = 3650


@dataclass(frozen=True)
class CertFiles:
    """Where one node's certificates and keys are (PEM files in one folder)."""

    folder: Path

    @property
    def ca(self) -> Path:
        return self.folder / "ca.pem"

    @property
    def ca_key(self) -> Path:
        return self.folder / "ca-key.pem"

    @property
    def node(self) -> Path:
        return self.folder / "node.pem"

    @property
    def node_key(self) -> Path:
        return self.folder / "node-key.pem"

    @property
    def admin(self) -> Path:
        return self.folder / "admin.pem"

    @property
    def admin_key(self) -> Path:
        return self.folder / "admin-key.pem"

    def all(self) -> tuple[Path, ...]:
        return (self.ca, self.ca_key, self.node, self.node_key, self.admin, self.admin_key)


def _crypto():  # noqa: ANN202 - the cryptography modules, imported only when a secured node is asked for
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import rsa
        from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
    except ImportError:
        raise ConfigError("a secured node needs the `cryptography` package",
                          hint="pip install -r requirements.txt") from None
    return x509, hashes, serialization, rsa, ExtendedKeyUsageOID, NameOID


def distinguished_name(subject: str):  # noqa: ANN201 - x509.Name
    """``CN=a,O=b`` as an x509 name, in the order written (the security plugin compares DNs in RFC 2253 form)."""
    x509, _, _, _, _, name_oid = _crypto()
    oids = {"CN": name_oid.COMMON_NAME, "O": name_oid.ORGANIZATION_NAME, "OU": name_oid.ORGANIZATIONAL_UNIT_NAME}
    parts = [p.split("=", 1) for p in subject.split(",")]
    # RFC 2253 writes the most specific part first; x509.Name lists from the root down
    return x509.Name([x509.NameAttribute(oids[k], v) for k, v in reversed(parts)])


def ensure_certs(folder: Path, log=print) -> CertFiles:  # noqa: ANN001 - Log
    """The node's certificates in ``folder``, made now when any is missing (all are made again together, so a
    half-written set never mixes two CAs)."""
    files = CertFiles(folder)
    if all(p.is_file() for p in files.all()):
        return files
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o700)
    x509, hashes, serialization, rsa, eku, _ = _crypto()
    now = dt.datetime.now(dt.timezone.utc) - dt.timedelta(minutes=5)

    def key():  # noqa: ANN202
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)

    def write_key(path: Path, private) -> None:  # noqa: ANN001
        data = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                     serialization.NoEncryption())
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        path.chmod(0o600)

    def write_cert(path: Path, cert) -> None:  # noqa: ANN001
        path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        path.chmod(0o644)

    ca_key = key()
    ca_name = distinguished_name(CA_SUBJECT)
    ca_cert = (
        x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number()).not_valid_before(now)
        .not_valid_after(now + dt.timedelta(days=CA_VALID_DAYS))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True, content_commitment=False,
                                     key_encipherment=False, data_encipherment=False, key_agreement=False,
                                     encipher_only=False, decipher_only=False), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
        .sign(ca_key, hashes.SHA256())
    )

    def leaf(subject: str, private, san: list | None):  # noqa: ANN001, ANN202
        builder = (
            x509.CertificateBuilder().subject_name(distinguished_name(subject)).issuer_name(ca_name)
            .public_key(private.public_key()).serial_number(x509.random_serial_number()).not_valid_before(now)
            .not_valid_after(now + dt.timedelta(days=VALID_DAYS))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_encipherment=True, content_commitment=False,
                                         data_encipherment=False, key_agreement=False, key_cert_sign=False,
                                         crl_sign=False, encipher_only=False, decipher_only=False), critical=True)
            # transport TLS is mutual: every node is server and client of the others
            .add_extension(x509.ExtendedKeyUsage([eku.SERVER_AUTH, eku.CLIENT_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), critical=False)
        )
        if san:
            builder = builder.add_extension(x509.SubjectAlternativeName(san), critical=False)
        return builder.sign(ca_key, hashes.SHA256())

    node_key, admin_key = key(), key()
    node_san = [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                x509.IPAddress(ipaddress.ip_address("::1"))]
    write_key(files.ca_key, ca_key)
    write_cert(files.ca, ca_cert)
    write_key(files.node_key, node_key)
    write_cert(files.node, leaf(NODE_SUBJECT, node_key, node_san))
    write_key(files.admin_key, admin_key)
    write_cert(files.admin, leaf(ADMIN_SUBJECT, admin_key, None))
    log(f"made a CA, a node and an admin certificate in {folder} (clients trust {files.ca})")
    return files
