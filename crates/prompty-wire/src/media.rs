//! Content-part payloads: data URIs, URLs, bare base64 and audio formats.

/// A `data:` URI split into its parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DataUri<'a> {
    /// The media type (empty when the URI gives none).
    pub(crate) mime: &'a str,
    /// Whether the payload is base64.
    pub base64: bool,
    /// The payload after the comma.
    pub(crate) data: &'a str,
}

/// Splits `data:<mime>[;params][;base64],<data>`; `None` when `s` is not a data URI.
pub(crate) fn data_uri(s: &str) -> Option<DataUri<'_>> {
    let rest = s.get(..5).filter(|p| p.eq_ignore_ascii_case("data:")).and_then(|_| s.get(5..))?;
    let (meta, data) = rest.split_once(',')?;
    let mut fields = meta.split(';');
    let mime = fields.next().unwrap_or_default().trim();
    let base64 = fields.any(|f| f.trim().eq_ignore_ascii_case("base64"));
    Some(DataUri { mime, base64, data })
}

/// Whether `s` starts with a URI scheme (`https:`, `data:`, `file:`, ...).
pub(crate) fn has_scheme(s: &str) -> bool {
    match s.split_once(':') {
        Some((scheme, _)) => {
            let mut chars = scheme.chars();
            chars.next().is_some_and(|c| c.is_ascii_alphabetic())
                && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        }
        None => false,
    }
}

/// Whether `s` is an `http:` or `https:` URL.
pub(crate) fn is_http(s: &str) -> bool {
    let lower = s.get(..8).unwrap_or(s).to_ascii_lowercase();
    lower.starts_with("http://") || lower.starts_with("https://")
}

/// The OpenAI `input_audio.format` for a media type: `audio/wav` and `audio/x-wav` are
/// `wav`, `audio/mp3` and `audio/mpeg` are `mp3`, any other `audio/x` is `x`.
pub(crate) fn audio_format(media_type: &str) -> String {
    let mt = media_type.trim().to_ascii_lowercase();
    match mt.as_str() {
        "audio/wav" | "audio/x-wav" | "audio/wave" => "wav".to_owned(),
        "audio/mp3" | "audio/mpeg" => "mp3".to_owned(),
        "audio/flac" => "flac".to_owned(),
        "audio/ogg" => "ogg".to_owned(),
        other => other.strip_prefix("audio/").unwrap_or(other).to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_data_uris() {
        assert_eq!(
            data_uri("data:image/png;base64,iVBOR"),
            Some(DataUri { mime: "image/png", base64: true, data: "iVBOR" })
        );
        assert_eq!(data_uri("DATA:,hello"), Some(DataUri { mime: "", base64: false, data: "hello" }));
        assert_eq!(data_uri("https://x/y.png"), None);
        assert_eq!(data_uri("data:no-comma"), None);
        assert_eq!(data_uri("dat"), None);
    }

    #[test]
    fn detects_schemes() {
        assert!(has_scheme("https://example.com"));
        assert!(has_scheme("data:image/png;base64,x"));
        assert!(!has_scheme("base64data"));
        assert!(!has_scheme("iVBOR/+=="));
        assert!(!has_scheme("1:2"));
        assert!(is_http("HTTPS://a"));
        assert!(!is_http("ftp://a"));
        assert!(!is_http("http"));
    }

    #[test]
    fn maps_audio_formats() {
        assert_eq!(audio_format("audio/mpeg"), "mp3");
        assert_eq!(audio_format("audio/x-wav"), "wav");
        assert_eq!(audio_format("audio/flac"), "flac");
        assert_eq!(audio_format("audio/webm"), "webm");
        assert_eq!(audio_format("wav"), "wav");
    }
}
