//! `include_prompty!`: a `.prompty` file checked while the crate compiles, with a typed
//! inputs struct that renders it. Use it through the `prompty-toolkit` crate (`prompty_toolkit::include_prompty!`),
//! which the generated code calls.
//!
//! ```ignore
//! prompty_toolkit::include_prompty!("prompts/greeting.prompty");
//!
//! let messages = GreetingInputs { name: "Ada".into(), excited: None }.render()?;
//! ```
//!
//! At compile time the macro reads the file (the path is relative to the crate's folder,
//! `CARGO_MANIFEST_DIR`), loads it, lints it with the file's `prompty.toml` selection and
//! its inline suppressions, and compiles its template. Every error-level diagnostic, and
//! every template variable no input declares (`PL001`), is a compile error at the macro's
//! string literal, with the file, line, column, message and help. The crate is rebuilt
//! when the file, or a file it references with `${file:}`, changes.
//!
//! It generates, in the calling module:
//!
//! - `pub struct <Name>Inputs`, named after the prompt's `name` (else the file name) in
//!   UpperCamelCase, or `<Ident>Inputs` with `include_prompty!("path" as Ident)`: one field
//!   per input, in snake_case (renamed back when serialized). The field types follow `kind`:
//!   `string` `String`, `integer` `i64`, `float` `f64`, `boolean` `bool`, `array`
//!   `Vec<T>` of its `items` (`Vec<prompty_toolkit::Value>` without), `object` a nested struct
//!   of its `properties` (`prompty_toolkit::Map<String, prompty_toolkit::Value>` without), and
//!   `prompty_toolkit::Value` for `union` and the rich kinds (`thread`, `image`, `file`, `audio`).
//!   An input that is not required, or has a default, is an `Option` left out when `None`
//!   (the default applies). Derives `Debug`, `Clone` and `serde::Serialize`, and `Default`
//!   when every field is optional. Descriptions become the fields' documentation.
//! - `impl <Name>Inputs { fn prompty() -> Result<&'static prompty_toolkit::Prompty, prompty_toolkit::Error>;
//!   fn render(&self) -> Result<Vec<prompty_toolkit::Message>, prompty_toolkit::Error> }`: the prompt is
//!   built on first use from data written into the program at compile time (the file's
//!   text and its front matter, already parsed): no YAML is parsed and no file is read at
//!   run time.
//!
//! `${env:}` references are not read at compile time, so that no value of the build
//! machine's environment is written into the program: one with a default takes the
//! default; one without stays as written (`${env:NAME}`).
//!
//! Tests that compile calls of this macro in another folder (trybuild, for one) may set
//! `CARGO_MANIFEST_DIR_OVERRIDE` to the folder paths are relative to.

#![warn(missing_docs)]

mod check;
mod flat;
mod names;
mod types;

use proc_macro::TokenStream;
use quote::quote;
use syn::parse::{Parse, ParseStream};
use syn::{Ident, LitStr, Token};

/// The macro's argument: `"path"` or `"path" as Ident`.
struct Args {
    path: LitStr,
    name: Option<Ident>,
}

impl Parse for Args {
    fn parse(input: ParseStream<'_>) -> syn::Result<Self> {
        let path: LitStr = input.parse()?;
        let name = if input.peek(Token![as]) {
            input.parse::<Token![as]>()?;
            Some(input.parse::<Ident>()?)
        } else {
            None
        };
        if !input.is_empty() {
            return Err(input.error(
                "expected `include_prompty!(\"path/to/file.prompty\")` or `include_prompty!(\"path\" as Name)`",
            ));
        }
        Ok(Args { path, name })
    }
}

/// Checks a `.prompty` file at compile time and generates its typed inputs struct; see the
/// crate documentation.
#[proc_macro]
pub fn include_prompty(input: TokenStream) -> TokenStream {
    let args = syn::parse_macro_input!(input as Args);
    match expand(&args) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn expand(args: &Args) -> syn::Result<proc_macro2::TokenStream> {
    let span = args.path.span();
    let checked = check::check(&args.path.value()).map_err(|problems| {
        let mut errors = problems.into_iter().map(|p| syn::Error::new(span, p));
        let mut first = errors.next().unwrap_or_else(|| syn::Error::new(span, "the prompt cannot be used"));
        for e in errors {
            first.combine(e);
        }
        first
    })?;
    let base = match &args.name {
        Some(ident) => ident.to_string(),
        None => names::type_base(checked.prompt.name.as_deref(), &checked.stem),
    };
    let generated = types::generate(&checked, &base, span).map_err(|message| syn::Error::new(span, message))?;
    let struct_name = &generated.name;
    let definitions = &generated.definitions;
    let tracked = checked.tracked.iter().map(|p| {
        quote!(
            const _: &[u8] = ::core::include_bytes!(#p);
        )
    });
    let embedded = flat::embedded(&checked, &args.path.value());
    let engine = names::engine(&checked.prompt.template.format.kind);
    let engine = Ident::new(engine, span);
    let doc_prompty =
        format!("The prompt of `{}`, built on first use from what was checked at compile time.", args.path.value());
    Ok(quote! {
        #(#tracked)*
        ::prompty_toolkit::__require_engine!(#engine);
        #definitions
        impl #struct_name {
            #[doc = #doc_prompty]
            pub fn prompty() -> ::core::result::Result<&'static ::prompty_toolkit::Prompty, ::prompty_toolkit::Error> {
                static PROMPTY: ::prompty_toolkit::__private::LazyLock<::core::result::Result<::prompty_toolkit::Prompty, ::prompty_toolkit::Error>> =
                    ::prompty_toolkit::__private::LazyLock::new(|| ::prompty_toolkit::__private::build(#struct_name::__embedded()));
                match &*PROMPTY {
                    ::core::result::Result::Ok(prompty) => ::core::result::Result::Ok(prompty),
                    ::core::result::Result::Err(e) => ::core::result::Result::Err(::core::clone::Clone::clone(e)),
                }
            }

            /// Renders the prompt with these inputs: its messages.
            pub fn render(&self) -> ::core::result::Result<::std::vec::Vec<::prompty_toolkit::Message>, ::prompty_toolkit::Error> {
                Self::prompty()?.render(self)
            }

            #[doc(hidden)]
            pub fn __embedded() -> &'static ::prompty_toolkit::__private::Embedded {
                static EMBEDDED: ::prompty_toolkit::__private::Embedded = #embedded;
                &EMBEDDED
            }
        }
    })
}
