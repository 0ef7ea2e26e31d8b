"""The certificates of a secured local node, made with the ``cryptography`` library (no openssl shell-outs).

One root CA signs a node certificate (HTTP and transport TLS; SAN 127.0.0.1, ::1 and localhost, since the node
listens on loopback only) and an admin certificate (the ``plugins.security.authcz.admin_dn`` identity that
``securityadmin.sh`` uses to change the security configuration later). Keys are PKCS#8 PEM without a passphrase,
the form the security plugin reads; they are written 0600, certificates 0644. Made once per node folder and kept:
a restart reuses them, so clients keep trusting the same CA.

The CA's key is written to a folder of its own (``CertFiles.key_folder``, 0700: ``NOMOS_CA_KEY_DIR``, by default
``<root>/ca-keys/<node>``), never into the node's folder, whose config the node's account reads and backups copy: the node
needs only the certificates and its own key, so it starts without the CA key, and the operator may move that key
offline. It is needed again only to issue new node and admin certificates under the same CA (rotation: delete
them, put the key back, ``server install --secure``). A key that an earlier version left beside the certificates
is moved there on the next install or start.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from nomos.errors import ConfigError
from nomos.opensearch.host_files import UnsafePath, make_folder, open_nofollow, read_bytes, write_file

CA_SUBJECT = "CN=nomos-local-ca,O=nomos"
NODE_SUBJECT = "CN=nomos-node,O=nomos"
ADMIN_SUBJECT = "CN=nomos-admin,O=nomos"
VALID_DAYS = 825  # the longest validity browsers and most TLS stacks accept for a leaf certificate
CA_VALID_DAYS = 3650


CA_KEY_NAME = "ca-key.pem"


@dataclass(frozen=True)
class CertFiles:
    """Where one node's certificates and keys are: PEM files in ``folder``, but the CA's key in ``key_folder``."""

    folder: Path
    key_folder: Path

    @property
    def ca(self) -> Path:
        return self.folder / "ca.pem"

    @property
    def ca_key(self) -> Path:
        return self.key_folder / CA_KEY_NAME

    @property
    def old_ca_key(self) -> Path:
        """Where versions before issue 39 kept the CA key: beside the certificates, in the node's folder."""
        return self.folder / CA_KEY_NAME

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

    def issued(self) -> tuple[Path, ...]:
        """What the node and ``securityadmin.sh`` use (the CA key is not among them)."""
        return (self.ca, self.node, self.node_key, self.admin, self.admin_key)

    def leaves(self) -> tuple[Path, ...]:
        """The node's and the admin's certificates and keys: what a rotation issues anew."""
        return (self.node, self.node_key, self.admin, self.admin_key)


def _crypto():  # the cryptography modules, imported only when a secured node is asked for
    try:
        from cryptography import x509
        from cryptography.hazmat.primitives import hashes, serialization
        from cryptography.hazmat.primitives.asymmetric import rsa
        from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID
    except ImportError:
        raise ConfigError("a secured node needs the `cryptography` package",
                          hint="pip install -r requirements.txt") from None
    return x509, hashes, serialization, rsa, ExtendedKeyUsageOID, NameOID


def distinguished_name(subject: str):  # x509.Name
    """``CN=a,O=b`` as an x509 name, in the order written (the security plugin compares DNs in RFC 2253 form)."""
    x509, _, _, _, _, name_oid = _crypto()
    oids = {"CN": name_oid.COMMON_NAME, "O": name_oid.ORGANIZATION_NAME, "OU": name_oid.ORGANIZATIONAL_UNIT_NAME}
    parts = [p.split("=", 1) for p in subject.split(",")]
    # RFC 2253 writes the most specific part first; x509.Name lists from the root down
    return x509.Name([x509.NameAttribute(oids[k], v) for k, v in reversed(parts)])


def ensure_certs(folder: Path, key_folder: Path, log=print) -> CertFiles:  # Log
    """The node's certificates in ``folder``, the CA's key in ``key_folder``; whatever is missing is made now.

    * all of them there: nothing to do (the CA key is not needed, and may be offline);
    * no CA certificate: a new CA (its key into ``key_folder``), and node and admin certificates signed by it;
    * the CA certificate there but a node or admin file missing (a rotation): new node and admin certificates
      signed by the same CA, whose key must then be in ``key_folder`` (else a ConfigError says where to put it).
    """
    files = CertFiles(folder, key_folder)
    _move_old_ca_key(files, log)
    if all(p.is_file() for p in files.issued()):
        return files
    x509, hashes, serialization, rsa, eku, _ = _crypto()
    tight_folder(folder)
    now = dt.datetime.now(dt.timezone.utc) - dt.timedelta(minutes=5)

    def key():
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)

    def write_cert(path: Path, cert) -> None:
        write_file(path, cert.public_bytes(serialization.Encoding.PEM), 0o644)

    if files.ca.is_file():
        ca_cert, ca_key = _load_ca(files)
        ca_name = ca_cert.subject
        log(f"issuing new node and admin certificates in {folder}, signed by the CA {files.ca} (its key {files.ca_key})")
    else:
        ca_key = key()
        ca_name = distinguished_name(CA_SUBJECT)
        ca_cert = (
            x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now)
            .not_valid_after(now + dt.timedelta(days=CA_VALID_DAYS))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                         content_commitment=False, key_encipherment=False, data_encipherment=False,
                                         key_agreement=False, encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256())
        )
        private_folder(key_folder)
        write_key(files.ca_key, ca_key)
        write_cert(files.ca, ca_cert)

    def leaf(subject: str, private, san: list | None):
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
    write_key(files.node_key, node_key)
    write_cert(files.node, leaf(NODE_SUBJECT, node_key, node_san))
    write_key(files.admin_key, admin_key)
    write_cert(files.admin, leaf(ADMIN_SUBJECT, admin_key, None))
    log(f"made the node and admin certificates in {folder} (clients trust {files.ca}); the CA key is {files.ca_key}, "
        "outside the node's folder: move it offline, it is needed only to issue new certificates (docs/security.md)")
    return files


def tight_folder(folder: Path) -> None:
    """``folder`` made 0700, or, when it exists, stripped of every permission but its owner's and the group's
    search bit: others never get in, and a portal user's group that ``node_security.grant_portal_user`` let pass
    through to its one file keeps that on the next start."""
    if not folder.exists():
        folder.parent.mkdir(parents=True, exist_ok=True)
        make_folder(folder, 0o700)
        return
    fd = open_nofollow(folder, directory=True)  # root's own, not a folder swapped in by another account
    try:
        st = os.fstat(fd)
        if st.st_uid != os.geteuid():
            raise UnsafePath(f"{folder}: owned by uid {st.st_uid}, not by this user; refusing to keep secrets in it",
                             hint="someone replaced it: inspect it, move it away, and run again")
        os.fchmod(fd, (stat.S_IMODE(st.st_mode) & 0o710) | 0o700)
    finally:
        os.close(fd)


def private_folder(folder: Path) -> None:
    """``folder`` (and any parent made for it) 0700: the CA key's folder is its owner's alone."""
    for path in [*reversed([p for p in folder.parents if not p.exists()]), folder]:
        make_folder(path, 0o700)


def write_key(path: Path, private) -> None:  # a cryptography private key
    """A PKCS#8 PEM key without a passphrase (what the security plugin reads), created 0600."""
    _, _, serialization, _, _, _ = _crypto()
    data = private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                 serialization.NoEncryption())
    write_file(path, data, 0o600)


def _load_ca(files: CertFiles):  # (x509.Certificate, private key)
    """The CA certificate and its key, for issuing under the same CA; a ConfigError when the key is not where it
    must be, or is not the certificate's."""
    x509, _, serialization, _, _, _ = _crypto()
    missing = [p.name for p in files.leaves() if not p.is_file()]
    if not files.ca_key.is_file():
        raise ConfigError(f"{files.folder} lacks {', '.join(missing)}, and issuing them needs the CA's key, which is "
                          f"not at {files.ca_key}",
                          hint="put the CA key back there (or set NOMOS_CA_KEY_DIR / --ca-key-dir to its folder); "
                               f"or, for a new CA that every client must then trust anew, remove {files.ca}")
    cert = x509.load_pem_x509_certificate(read_bytes(files.ca))
    key = serialization.load_pem_private_key(read_bytes(files.ca_key), password=None)
    public = serialization.PublicFormat.SubjectPublicKeyInfo
    if key.public_key().public_bytes(serialization.Encoding.PEM, public) != \
            cert.public_key().public_bytes(serialization.Encoding.PEM, public):
        raise ConfigError(f"{files.ca_key} is not the key of the CA certificate {files.ca}",
                          hint="put that CA's own key there")
    return cert, key


def _move_old_ca_key(files: CertFiles, log=print) -> None:  # Log
    """A CA key an earlier version left beside the certificates goes to ``files.key_folder`` (the same key already
    there: the old copy is removed; a different one: a ConfigError, nothing is overwritten)."""
    old = files.old_ca_key
    if not old.is_file() or old == files.ca_key:
        return
    if files.ca_key.is_file():
        if read_bytes(files.ca_key) != read_bytes(old):
            raise ConfigError(f"two different CA keys: {old} (in the node's folder) and {files.ca_key}",
                              hint=f"keep the one that signed {files.ca}, delete the other")
        old.unlink()
        log(f"removed {old}: the CA key is kept at {files.ca_key}, outside the node's folder")
        return
    private_folder(files.key_folder)
    write_file(files.ca_key, read_bytes(old), 0o600)
    old.unlink()
    log(f"moved the CA key out of the node's folder: {old} -> {files.ca_key} (move it offline; docs/security.md)")
