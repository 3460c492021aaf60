//! Ed25519 signatures over A2AP documents exactly as `docs/FORMATS.md`, "A2AP documents" fixes them: what bytes are
//! signed, how a key is named and trusted, and the one status each check ends in.
//!
//! The bytes are checked by the rule in [`super::ed25519`], one by one or, for many documents
//! at once, in batches that give each document the status a single check would.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use ed25519_dalek::{Signature, Signer as _, VerifyingKey};
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::canonical::canonicalize_except;
use super::document::{parse_documents, parse_value, DocType, Document, Record};
use super::ed25519;
use super::keys::{embedded_form, KeyFile, KeyRegistry, KeyResolution};

/// How a signature check ended: exactly one of these per signed document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum SignatureStatus {
    /// The signature matches the signed bytes under a key registered for the signer.
    Valid,
    /// The signature does not match the signed bytes (under the named key).
    Invalid,
    /// `publicKey` is a key id the registry does not know.
    UnknownKey,
    /// The key is not registered for the signing agent: an embedded key the registry does not
    /// list for it, or a registered key id that belongs to another agent. The bytes matched.
    UntrustedKey,
    /// The signature block cannot be decoded (algorithm, base64, length, embedded key).
    Malformed,
    /// No signature (no `signature` member, or no `signature.value`).
    Unsigned,
}

impl SignatureStatus {
    pub const ALL: [SignatureStatus; 6] = [
        SignatureStatus::Valid,
        SignatureStatus::Invalid,
        SignatureStatus::UnknownKey,
        SignatureStatus::UntrustedKey,
        SignatureStatus::Malformed,
        SignatureStatus::Unsigned,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            SignatureStatus::Valid => "valid",
            SignatureStatus::Invalid => "invalid",
            SignatureStatus::UnknownKey => "unknown_key",
            SignatureStatus::UntrustedKey => "untrusted_key",
            SignatureStatus::Malformed => "malformed",
            SignatureStatus::Unsigned => "unsigned",
        }
    }
}

impl std::fmt::Display for SignatureStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The outcome of checking one document's signature.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignatureCheck {
    pub status: SignatureStatus,
    /// The document's `signature.publicKey`, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    /// Why the status is not `valid`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl SignatureCheck {
    fn new(status: SignatureStatus, key: Option<&str>, reason: Option<String>) -> Self {
        SignatureCheck { status, key: key.map(str::to_owned), reason }
    }
}

/// The bytes a document's signature covers: the RFC 8785 form of the document without
/// `signature.value` and, for statements, without `verificationStatus`.
pub fn signed_bytes(value: &Value) -> Vec<u8> {
    let is_statement = value.get("@type").and_then(Value::as_str) == Some(DocType::Statement.as_str());
    let top: &[&str] = if is_statement { &["verificationStatus"] } else { &[] };
    canonicalize_except(value, top, ("signature", &["value"]))
}

/// Checks the signature of a parsed record.
pub fn check_record(record: &Record, registry: &KeyRegistry) -> SignatureCheck {
    check_signature(&record.value, record.document.signer(), registry)
}

/// Checks a document's signature for the agent that should have signed it (`signer`; `None`
/// when the document type names none, so no key can be trusted for it).
///
/// Order: `unsigned`, then `malformed`, then `unknown_key`, then `invalid` (the bytes do not
/// match), then `untrusted_key` (they match but the key is not the signer's), else `valid`.
pub fn check_signature(value: &Value, signer: Option<&str>, registry: &KeyRegistry) -> SignatureCheck {
    check_signature_with(value, signer, registry, None)
}

/// [`check_signature`], told that the signature was already found to match its bytes under
/// `verified` (by a batch, [`batch_verified`]): the match is not computed again when the
/// registry resolves the document's key to that same key.
pub fn check_signature_with(
    value: &Value,
    signer: Option<&str>,
    registry: &KeyRegistry,
    verified: Option<&VerifyingKey>,
) -> SignatureCheck {
    use SignatureStatus::*;
    let block = match decode_block(value, registry) {
        Ok(block) => block,
        Err(check) => return check,
    };
    let Block { key_ref, signature, key, registered_agent } = block;
    let fail = |status, reason: String| SignatureCheck::new(status, Some(key_ref), Some(reason));
    if verified != Some(&key) && !ed25519::verify(&key, &signed_bytes(value), &signature) {
        return fail(Invalid, "the signature does not match the signed bytes".into());
    }
    let trusted = signer.is_some_and(|s| registry.is_registered_for(s, &key));
    if !trusted {
        let reason = match (registered_agent, signer) {
            (Some(owner), Some(s)) => format!("key {key_ref} is registered for {owner}, not {s}"),
            (_, Some(s)) => format!("embedded key is not registered for {s}"),
            (_, None) => "the document names no signing agent".to_owned(),
        };
        return fail(UntrustedKey, reason);
    }
    SignatureCheck::new(Valid, Some(key_ref), None)
}

/// For each record, the key its signature matches its bytes under, found by batch
/// verification ([`ed25519::verify_each`]); `None` where it does not match or the signature
/// cannot be checked with the registry as it is now (those are checked one by one later).
pub fn batch_verified(records: &[Record], registry: &KeyRegistry) -> Vec<Option<VerifyingKey>> {
    let mut out = vec![None; records.len()];
    let mut prepared = Vec::new();
    let mut which = Vec::new();
    for (i, record) in records.iter().enumerate() {
        if !record.doc_type().is_signed_type() {
            continue;
        }
        let Ok(block) = decode_block(&record.value, registry) else { continue };
        if let Some(p) = ed25519::prepare(&block.key, &signed_bytes(&record.value), &block.signature) {
            prepared.push(p);
            which.push((i, block.key));
        }
    }
    for ((i, key), ok) in which.into_iter().zip(ed25519::verify_each(&prepared)) {
        if ok {
            out[i] = Some(key);
        }
    }
    out
}

/// A signature block decoded far enough to check the bytes.
struct Block<'a> {
    key_ref: &'a str,
    signature: Signature,
    key: VerifyingKey,
    registered_agent: Option<String>,
}

/// Decodes a document's signature block and resolves its key, or says which status ends
/// the check before any bytes are compared (`unsigned`, `malformed`, `unknown_key`).
fn decode_block<'a>(value: &'a Value, registry: &KeyRegistry) -> Result<Block<'a>, SignatureCheck> {
    use SignatureStatus::*;
    let sig = match value.get("signature") {
        None | Some(Value::Null) => {
            return Err(SignatureCheck::new(Unsigned, None, Some("no signature".into())))
        }
        Some(Value::Object(sig)) => sig,
        Some(_) => {
            return Err(SignatureCheck::new(Malformed, None, Some("signature is not an object".into())))
        }
    };
    let key_ref = sig.get("publicKey").and_then(Value::as_str);
    let fail = |status, reason: String| Err(SignatureCheck::new(status, key_ref, Some(reason)));
    let sig_b64 = match sig.get("value") {
        None | Some(Value::Null) => return fail(Unsigned, "signature has no value".into()),
        Some(Value::String(s)) => s,
        Some(_) => return fail(Malformed, "signature.value is not a string".into()),
    };
    match sig.get("algorithm") {
        Some(Value::String(a)) if a == "ed25519" => {}
        Some(Value::String(a)) => return fail(Malformed, format!("unsupported algorithm {a:?}")),
        _ => return fail(Malformed, "signature.algorithm is missing".into()),
    }
    let Some(key_ref) = key_ref else {
        return fail(Malformed, "signature.publicKey is missing or not a string".into());
    };
    let signature = match STANDARD.decode(sig_b64) {
        Ok(bytes) => match <[u8; 64]>::try_from(bytes.as_slice()) {
            Ok(b) => Signature::from_bytes(&b),
            Err(_) => return fail(Malformed, format!("signature has {} bytes, not 64", bytes.len())),
        },
        Err(e) => return fail(Malformed, format!("signature.value is not standard base64: {e}")),
    };
    let (key, registered_agent) = match registry.resolve(key_ref) {
        KeyResolution::Registered { key, agent } => (key, Some(agent)),
        KeyResolution::Embedded(key) => (key, None),
        KeyResolution::Unknown => return fail(UnknownKey, format!("key {key_ref} is not in the registry")),
        KeyResolution::Malformed(e) => return fail(Malformed, format!("embedded key: {e}")),
    };
    Ok(Block { key_ref, signature, key, registered_agent })
}

/// How a signature names its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KeyRef {
    /// By the key file's `key_id` (resolved through the registry).
    #[default]
    KeyId,
    /// Embedded as `ed25519:<base64>` (trusted only if the registry lists it).
    Embedded,
}

/// Signs a document in place: sets `signature` to `{"@type":"a2ap:CryptographicSignature",
/// "algorithm":"ed25519","publicKey":..,"value":..}`, keeping other members of an existing
/// signature block (whose `value` is replaced). Refuses documents whose signing agent is not
/// the key's agent, and types that are not signed.
pub fn sign_value(value: &mut Value, key: &KeyFile, key_ref: KeyRef) -> Result<(), String> {
    let (_, document) = parse_value(value.clone())?;
    let doc_type = document.doc_type();
    if !doc_type.is_signed_type() {
        return Err(format!("{doc_type} documents are not signed"));
    }
    if document.signer() != Some(key.agent.as_str()) {
        return Err(format!(
            "the document's agent is {}, the key belongs to {}",
            document.signer().unwrap_or("nobody"),
            key.agent
        ));
    }
    let signing = key.signing_key()?;
    let public = match key_ref {
        KeyRef::KeyId => key.key_id.clone(),
        KeyRef::Embedded => embedded_form(&signing.verifying_key()),
    };
    let obj = value.as_object_mut().ok_or("a document must be a JSON object")?;
    let mut block = match obj.get("signature") {
        Some(Value::Object(existing)) => existing.clone(),
        _ => serde_json::Map::new(),
    };
    block.entry("@type").or_insert(json!("a2ap:CryptographicSignature"));
    block.insert("algorithm".into(), json!("ed25519"));
    block.insert("publicKey".into(), json!(public));
    block.shift_remove("value");
    obj.insert("signature".into(), Value::Object(block));
    let signature = signing.sign(&signed_bytes(value));
    if let Some(Value::Object(block)) = value.get_mut("signature") {
        block.insert("value".into(), json!(STANDARD.encode(signature.to_bytes())));
    }
    Ok(())
}

/// Signs every document of a file (`provex sign FILE --key KEY`) that the key's agent signs,
/// passing source documents and agent records through unchanged. The output keeps the input's
/// shape (JSON Lines stay JSON Lines, an array stays an array, one compact document each).
/// Fails, naming the record, on a record that cannot be read or belongs to another agent.
pub fn sign_text(text: &str, key: &KeyFile, key_ref: KeyRef) -> Result<String, String> {
    let is_array = text.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}').starts_with('[');
    let mut lines = Vec::new();
    for result in parse_documents(text) {
        let mut record = result.map_err(|e| e.to_string())?;
        if record.doc_type().is_signed_type() {
            sign_value(&mut record.value, key, key_ref).map_err(|e| format!("{}: {e}", record.position))?;
        }
        lines.push(serde_json::to_string(&record.value).map_err(|e| e.to_string())?);
    }
    Ok(if is_array {
        format!("[\n{}\n]\n", lines.join(",\n"))
    } else {
        lines.iter().map(|l| format!("{l}\n")).collect()
    })
}

/// The signer's key named in a document, decoded, when it is embedded (for display).
pub fn embedded_key(value: &Value) -> Option<VerifyingKey> {
    let text = value.get("signature")?.get("publicKey")?.as_str()?;
    match KeyRegistry::new().resolve(text) {
        KeyResolution::Embedded(k) => Some(k),
        _ => None,
    }
}

/// The document's `signature.value`, if any (for display and graph properties).
pub fn signature_value(value: &Value) -> Option<&str> {
    value.get("signature")?.get("value")?.as_str()
}

/// Whether a document is of a type whose signature is checked.
pub fn is_signed(document: &Document) -> bool {
    document.doc_type().is_signed_type()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::{SigningKey, Verifier as _};

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }

    /// RFC 8032 §7.1 TEST 1024: the 1023-byte message, in hex.
    const TEST_1024_MESSAGE: &str = concat!(
        "08b8b2b733424243760fe426a4b54908632110a66c2f6591eabd3345e3e4eb98fa6e264bf09efe12ee50f8f54e9f77b1",
        "e355f6c50544e23fb1433ddf73be84d879de7c0046dc4996d9e773f4bc9efe5738829adb26c81b37c93a1b270b20329d",
        "658675fc6ea534e0810a4432826bf58c941efb65d57a338bbd2e26640f89ffbc1a858efcb8550ee3a5e1998bd177e93a",
        "7363c344fe6b199ee5d02e82d522c4feba15452f80288a821a579116ec6dad2b3b310da903401aa62100ab5d1a36553e",
        "06203b33890cc9b832f79ef80560ccb9a39ce767967ed628c6ad573cb116dbefefd75499da96bd68a8a97b928a8bbc10",
        "3b6621fcde2beca1231d206be6cd9ec7aff6f6c94fcd7204ed3455c68c83f4a41da4af2b74ef5c53f1d8ac70bdcb7ed1",
        "85ce81bd84359d44254d95629e9855a94a7c1958d1f8ada5d0532ed8a5aa3fb2d17ba70eb6248e594e1a2297acbbb39d",
        "502f1a8c6eb6f1ce22b3de1a1f40cc24554119a831a9aad6079cad88425de6bde1a9187ebb6092cf67bf2b13fd65f270",
        "88d78b7e883c8759d2c4f5c65adb7553878ad575f9fad878e80a0c9ba63bcbcc2732e69485bbc9c90bfbd62481d9089b",
        "eccf80cfe2df16a2cf65bd92dd597b0707e0917af48bbb75fed413d238f5555a7a569d80c3414a8d0859dc65a46128ba",
        "b27af87a71314f318c782b23ebfe808b82b0ce26401d2e22f04d83d1255dc51addd3b75a2b1ae0784504df543af8969b",
        "e3ea7082ff7fc9888c144da2af58429ec96031dbcad3dad9af0dcbaaaf268cb8fcffead94f3c7ca495e056a9b47acdb7",
        "51fb73e666c6c655ade8297297d07ad1ba5e43f1bca32301651339e22904cc8c42f58c30c04aafdb038dda0847dd988d",
        "cda6f3bfd15c4b4c4525004aa06eeff8ca61783aacec57fb3d1f92b0fe2fd1a85f6724517b65e614ad6808d6f6ee34df",
        "f7310fdc82aebfd904b01e1dc54b2927094b2db68d6f903b68401adebf5a7e08d78ff4ef5d63653a65040cf9bfd4aca7",
        "984a74d37145986780fc0b16ac451649de6188a7dbdf191f64b5fc5e2ab47b57f7f7276cd419c17a3ca8e1b939ae49e4",
        "88acba6b965610b5480109c8b17b80e1b7b750dfc7598d5d5011fd2dcc5600a32ef5b52a1ecc820e308aa342721aac09",
        "43bf6686b64b2579376504ccc493d97e6aed3fb0f9cd71a43dd497f01f17c0e2cb3797aa2a2f256656168e6c496afc5f",
        "b93246f6b1116398a346f1a641f3b041e989f7914f90cc2c7fff357876e506b50d334ba77c225bc307ba537152f3f161",
        "0e4eafe595f6d9d90d11faa933a15ef1369546868a7f3a45a96768d40fd9d03412c091c6315cf4fde7cb68606937380d",
        "b2eaaa707b4c4185c32eddcdd306705e4dc1ffc872eeee475a64dfac86aba41c0618983f8741c5ef68d3a101e8a3b8ca",
        "c60c905c15fc910840b94c00a0b9d0",
    );

    /// RFC 8032 §7.1, TEST 1, 2, 3, 1024 and SHA(abc): secret key, public key, message,
    /// signature.
    #[test]
    fn rfc8032_test_vectors() {
        let vectors = [
            (
                "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
                "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
                "",
                "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
            ),
            (
                "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
                "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
                "72",
                "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
            ),
            (
                "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
                "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
                "af82",
                "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
            ),
            (
                "f5e5767cf153319517630f226876b86c8160cc583bc013744c6bf255f5cc0ee5",
                "278117fc144c72340f67d0f2316e8386ceffbf2b2428c9c51fef7c597f1d426e",
                TEST_1024_MESSAGE,
                "0aab4c900501b3e24d7cdf4663326a3a87df5e4843b2cbdb67cbf6e460fec350aa5371b1508f9f4528ecea23c436d94b5e8fcd4f681e30a6ac00a9704a188a03",
            ),
            (
                "833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
                "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
                "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
                "dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704",
            ),
        ];
        assert_eq!(TEST_1024_MESSAGE.len(), 2 * 1023);
        for (sk, pk, msg, sig) in vectors {
            let signing = SigningKey::from_bytes(&hex(sk).try_into().unwrap());
            assert_eq!(signing.verifying_key().as_bytes().to_vec(), hex(pk));
            let msg = hex(msg);
            let made = signing.sign(&msg);
            assert_eq!(made.to_bytes().to_vec(), hex(sig));
            let vk = VerifyingKey::from_bytes(&hex(pk).try_into().unwrap()).unwrap();
            assert!(vk.verify_strict(&msg, &made).is_ok());
            assert!(vk.verify(&[msg.as_slice(), b"x"].concat(), &made).is_err());
        }
    }

    #[test]
    fn signed_bytes_drop_only_value_and_verification_status() {
        let doc = json!({"@type":"a2ap:ProvenanceStatement","b":1,"a":2,
            "signature":{"algorithm":"ed25519","publicKey":"k","value":"xyz"},
            "verificationStatus":{"verified":true}});
        assert_eq!(
            String::from_utf8(signed_bytes(&doc)).unwrap(),
            r#"{"@type":"a2ap:ProvenanceStatement","a":2,"b":1,"signature":{"algorithm":"ed25519","publicKey":"k"}}"#
        );
        let resp =
            json!({"@type":"a2ap:VerificationResponse","verificationStatus":1,"signature":{"value":"v"}});
        assert_eq!(
            String::from_utf8(signed_bytes(&resp)).unwrap(),
            r#"{"@type":"a2ap:VerificationResponse","signature":{},"verificationStatus":1}"#
        );
    }
}
