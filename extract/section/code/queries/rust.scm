; Rust definitions for git konteks sections (tags.scm style).
; Captures: see queries/README.md.

[(line_comment) (block_comment)] @comment

(attribute_item) @attr

(struct_item
  name: (type_identifier) @name) @definition.struct

(enum_item
  name: (type_identifier) @name) @definition.enum

(union_item
  name: (type_identifier) @name) @definition.union

(trait_item
  name: (type_identifier) @name) @definition.trait

; impl Type / impl Trait for Type: named by the type, so its methods are Type.method.
(impl_item
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
  ]) @definition.impl

(mod_item
  name: (identifier) @name
  body: (declaration_list)) @definition.module

; Trait methods without a body (function_signature_item) stay in the trait.
(function_item
  name: (identifier) @name) @definition.function

(macro_definition
  name: (identifier) @name) @definition.macro

(type_item
  name: (type_identifier) @name) @definition.type
