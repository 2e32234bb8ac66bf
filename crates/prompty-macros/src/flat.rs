//! The prompt as static data: its text and its front matter laid out flat.

use proc_macro2::TokenStream;
use prompty_syntax::Profile;
use prompty_syntax::yaml::Flat;
use quote::quote;

use crate::check::Checked;

/// The `prompty_toolkit::__private::Embedded` value of a checked prompt.
pub(crate) fn embedded(checked: &Checked, name: &str) -> TokenStream {
    let nodes = checked.front.root.to_flat().into_iter().map(|n| {
        let value = match n.value {
            Flat::Null => quote!(Null),
            Flat::Bool(b) => quote!(Bool(#b)),
            Flat::Int(i) => quote!(Int(#i)),
            Flat::UInt(u) => quote!(UInt(#u)),
            Flat::Float(x) => {
                let bits = x.to_bits();
                quote!(Float(f64::from_bits(#bits)))
            }
            Flat::Str(s) => quote!(Str(#s)),
            Flat::Seq(n) => quote!(Seq(#n)),
            Flat::Map(n) => quote!(Map(#n)),
        };
        let (start, end) = (n.start, n.end);
        quote!(N { value: #value, start: #start, end: #end })
    });
    let text = &checked.text;
    let stem = &checked.stem;
    let promptflow = checked.front.profile == Profile::Promptflow;
    quote! {
        {
            use ::prompty_toolkit::__private::Flat::*;
            use ::prompty_toolkit::__private::FlatNode as N;
            ::prompty_toolkit::__private::Embedded {
                name: #name,
                stem: #stem,
                text: #text,
                promptflow: #promptflow,
                front_matter: &[#(#nodes),*],
            }
        }
    }
}
