//! `#[crucible_ipc::command]`, the one declaration of a desktop-app command. Put on a command fn
//! in place of `#[tauri::command]`, it keeps the fn as Tauri sees it and adds, beside it, a
//! module of the same name whose `declaration()` describes the command to the TypeScript side:
//! its name, doc comment, the arguments the UI sends (Tauri's own arguments — `State`,
//! `AppHandle`, windows — left out) and its result. `src-tauri/src/ipc.rs` lists every command
//! once; from that list come both the handler Tauri registers and `ui/src/commands.ts`.
//!
//! `#[command(owner)]` marks a change of a lab run that another member made: the command takes
//! `force: Option<bool>`, which the generated wrapper does not expose — it asks the person and
//! retries with `force` itself (`ui/src/call.ts`, `ownerChecked`).
//!
//! An attribute rather than a `macro_rules!` around each command: the command stays an ordinary
//! fn that rustfmt formats and the editor reads. The macro only reads the signature; the types
//! are turned into TypeScript by ts-rs when the app's test writes the file, never here.

use proc_macro::TokenStream;
use quote::quote;
use syn::{parse_macro_input, spanned::Spanned, FnArg, ItemFn, Pat, ReturnType, Type};

/// Arguments Tauri fills in itself rather than reading from the UI's message.
const INJECTED: [&str; 5] = ["State", "AppHandle", "Window", "WebviewWindow", "Webview"];

/// Declares a Tauri command (see the crate docs); `#[command(owner)]` for an owner-checked one.
#[proc_macro_attribute]
pub fn command(attr: TokenStream, item: TokenStream) -> TokenStream {
    let func = parse_macro_input!(item as ItemFn);
    let attr = proc_macro2::TokenStream::from(attr);
    match expand(attr, func) {
        Ok(t) => t.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

fn expand(attr: proc_macro2::TokenStream, func: ItemFn) -> syn::Result<proc_macro2::TokenStream> {
    let owner = match attr.to_string().as_str() {
        "" => false,
        "owner" => true,
        other => {
            return Err(syn::Error::new(
                attr.span(),
                format!("unknown option `{other}`: the only one is `owner`"),
            ))
        }
    };
    let name = &func.sig.ident;
    let vis = &func.vis;
    let doc: Vec<String> = func
        .attrs
        .iter()
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) if nv.path.is_ident("doc") => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    if doc.is_empty() {
        return Err(syn::Error::new(
            name.span(),
            "a command needs a `///` doc comment: it becomes its TypeScript wrapper's",
        ));
    }
    let mut args = Vec::new();
    let mut has_force = false;
    for input in &func.sig.inputs {
        let FnArg::Typed(typed) = input else {
            return Err(syn::Error::new(input.span(), "a command takes no `self`"));
        };
        let Pat::Ident(ident) = &*typed.pat else {
            return Err(syn::Error::new(
                typed.pat.span(),
                "a command's argument needs a plain name (the UI sends it by name)",
            ));
        };
        if injected(&typed.ty) {
            continue;
        }
        let arg = ident.ident.to_string();
        if owner && arg == "force" {
            has_force = true;
            continue;
        }
        let ty = &typed.ty;
        args.push(quote! { crate::ipc::Arg { name: #arg, ty: crate::ipc::ts::<#ty> } });
    }
    if owner && !has_force {
        return Err(syn::Error::new(
            name.span(),
            "an owner-checked command takes `force: Option<bool>` (the UI retries with it)",
        ));
    }
    let result = match &func.sig.output {
        ReturnType::Default => quote! { () },
        ReturnType::Type(_, ty) => quote! { #ty },
    };
    let rust = name.to_string();
    Ok(quote! {
        #[tauri::command]
        #func

        #[doc(hidden)]
        #[allow(unused_imports)]
        #vis mod #name {
            use super::*;

            /// What the UI's generated wrapper of this command is made from.
            pub fn declaration() -> crate::ipc::Declaration {
                crate::ipc::Declaration {
                    name: #rust,
                    module: module_path!(),
                    doc: &[#(#doc),*],
                    args: &[#(#args),*],
                    result: <#result as crate::ipc::Returns>::ts,
                    owner: #owner,
                }
            }
        }
    })
}

/// Whether `ty` is one of [`INJECTED`] (by its last path segment, as Tauri's users write them).
fn injected(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => p
            .path
            .segments
            .last()
            .is_some_and(|s| INJECTED.contains(&s.ident.to_string().as_str())),
        Type::Reference(r) => injected(&r.elem),
        _ => false,
    }
}
