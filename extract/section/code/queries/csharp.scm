; C# definitions for git konteks sections (tags.scm style).
; Captures: see queries/README.md. Namespaces are not sections (like a
; package clause); interface members without a body stay in the interface.

(comment) @comment

(class_declaration
  name: (identifier) @name) @definition.class

(interface_declaration
  name: (identifier) @name) @definition.interface

(struct_declaration
  name: (identifier) @name) @definition.struct

(enum_declaration
  name: (identifier) @name) @definition.enum

(record_declaration
  name: (identifier) @name) @definition.record

(method_declaration
  name: (identifier) @name
  body: (_)) @definition.method

(constructor_declaration
  name: (identifier) @name
  body: (_)) @definition.method

(destructor_declaration
  name: (identifier) @name
  body: (_)) @definition.method

(operator_declaration
  body: (_)) @definition.method
