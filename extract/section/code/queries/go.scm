; Go definitions for git konteks sections (tags.scm style).
; Captures: see queries/README.md.

(comment) @comment

; A type, var or const declaration belongs to its spec when it holds only one.
(type_declaration) @wrapper
(var_declaration) @wrapper
(const_declaration) @wrapper

(function_declaration
  name: (identifier) @name) @definition.function

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @receiver
        (pointer_type (type_identifier) @receiver)
        (generic_type type: (type_identifier) @receiver)
        (pointer_type (generic_type type: (type_identifier) @receiver))
      ]))
  name: (field_identifier) @name) @definition.method

(type_spec
  name: (type_identifier) @name
  type: (struct_type)) @definition.struct

(type_spec
  name: (type_identifier) @name
  type: (interface_type)) @definition.interface

(type_spec
  name: (type_identifier) @name) @definition.type

(type_alias
  name: (type_identifier) @name) @definition.type

; var f = func(...) { ... }
(var_spec
  name: (identifier) @name
  value: (expression_list . (func_literal body: (block) @body) .)) @definition.function
