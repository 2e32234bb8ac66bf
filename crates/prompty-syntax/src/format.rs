//! The template engines a `.prompty` body can be written for.

use std::fmt;

/// A template engine this toolkit renders: what `template.format` (`kind`) names.
///
/// The file keeps the name as written ([`FormatConfig::kind`](crate::FormatConfig::kind));
/// every place that acts on the engine reads it through [`TemplateFormat::from_kind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TemplateFormat {
    /// `jinja2` (the default; `nunjucks` is an alias, as the reference runtime has it).
    Jinja2,
    /// `mustache`.
    Mustache,
    /// `handlebars`.
    Handlebars,
}

impl TemplateFormat {
    /// Every format, the default first.
    pub const ALL: [TemplateFormat; 3] = [TemplateFormat::Jinja2, TemplateFormat::Mustache, TemplateFormat::Handlebars];

    /// The name the spec gives it.
    pub const fn name(self) -> &'static str {
        match self {
            TemplateFormat::Jinja2 => "jinja2",
            TemplateFormat::Mustache => "mustache",
            TemplateFormat::Handlebars => "handlebars",
        }
    }

    /// The format a `template.format` kind names, aliases included; `None` for a kind this
    /// toolkit does not render.
    pub fn from_kind(kind: &str) -> Option<Self> {
        match kind {
            "jinja2" | "nunjucks" => Some(TemplateFormat::Jinja2),
            "mustache" => Some(TemplateFormat::Mustache),
            "handlebars" => Some(TemplateFormat::Handlebars),
            _ => None,
        }
    }
}

impl fmt::Display for TemplateFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back() {
        for format in TemplateFormat::ALL {
            assert_eq!(TemplateFormat::from_kind(format.name()), Some(format));
        }
        assert_eq!(TemplateFormat::from_kind("nunjucks"), Some(TemplateFormat::Jinja2));
        assert_eq!(TemplateFormat::from_kind("Jinja2"), None);
        assert_eq!(TemplateFormat::from_kind("liquid"), None);
    }
}
