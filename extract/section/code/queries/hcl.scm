; HCL / Terraform definitions for git konteks sections (tags.scm style).
; Captures: see queries/README.md. Each top-level block is a section whose
; kind is its type (resource, variable, module, ...) and whose name is its
; labels joined by dots (aws_instance.web), or its type when it has none.

(comment) @comment

(config_file
  (body
    (block
      .
      (identifier) @kind
      .
      (string_lit)+ @name
      .
      (block_start) @body) @definition.block))

(config_file
  (body
    (block
      .
      (identifier) @kind @name
      .
      (block_start) @body) @definition.block))
