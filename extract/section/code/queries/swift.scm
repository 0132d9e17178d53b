; Swift definitions for git konteks sections (tags.scm style).
; Captures: see queries/README.md. Protocol requirements stay in the
; protocol; an extension is named by the type it extends.

[(comment) (multiline_comment)] @comment

(class_declaration
  declaration_kind: "struct"
  name: (_) @name) @definition.struct

(class_declaration
  declaration_kind: "enum"
  name: (_) @name) @definition.enum

(class_declaration
  declaration_kind: "extension"
  name: (_) @name) @definition.extension

(class_declaration
  declaration_kind: "actor"
  name: (_) @name) @definition.actor

(class_declaration
  name: (_) @name) @definition.class

(protocol_declaration
  name: (_) @name) @definition.protocol

; Protocol requirements are protocol_function_declaration, so every
; function_declaration has a body. (A pattern with both name: and body:
; fields takes tree-sitter ~20 s to compile for this grammar.)
(function_declaration
  (simple_identifier) @name) @definition.function

(init_declaration
  "init" @name
  body: (_)) @definition.method

(deinit_declaration
  "deinit" @name) @definition.method
