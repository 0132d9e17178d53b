; Kotlin definitions for git konteks sections (tags.scm style).
; Captures: see queries/README.md. The grammar has few fields, so kinds are
; told by keywords and children. Companion objects are not sections: their
; functions are the class's (Repo.create).

[(line_comment) (multiline_comment)] @comment

(class_declaration
  "interface"
  (type_identifier) @name
  (class_body)? @body) @definition.interface

(class_declaration
  (type_identifier) @name
  (enum_class_body) @body) @definition.enum

(class_declaration
  (type_identifier) @name
  (class_body)? @body) @definition.class

(object_declaration
  (type_identifier) @name
  (class_body)? @body) @definition.object

; fun Receiver.name() — an extension function.
(function_declaration
  (user_type) @receiver
  .
  "."
  .
  (simple_identifier) @name
  (function_body) @body) @definition.function

; Interface and abstract functions (no body) stay in their type.
(function_declaration
  (simple_identifier) @name
  (function_body) @body) @definition.function
