; Protocol Buffers definitions for git konteks sections (tags.scm style).
; Captures: see queries/README.md. rpc lines stay in their service.

(comment) @comment

(message
  (message_name) @name) @definition.message

(enum
  (enum_name) @name) @definition.enum

(service
  (service_name) @name) @definition.service
