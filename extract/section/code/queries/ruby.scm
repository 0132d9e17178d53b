; Ruby definitions for git konteks sections (tags.scm style).
; Captures: see queries/README.md. Methods in `class << self` belong to the
; class; `def self.x` is named x.

(comment) @comment

(module
  name: (_) @name) @definition.module

(class
  name: (_) @name) @definition.class

(method
  name: (_) @name) @definition.function

(singleton_method
  name: (_) @name) @definition.function
