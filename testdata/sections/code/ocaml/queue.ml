(* A functional queue. *)
open Printf

(** The queue type. *)
type 'a t = { front : 'a list; back : 'a list }

let empty = { front = []; back = [] }

(** [push x q] adds [x] at the back. *)
let push x q = { q with back = x :: q.back }

let rec length q =
  List.length q.front + List.length q.back

module Counter = struct
  let count = ref 0

  let incr () = count := !count + 1
end

module type SHOW = sig
  val show : int -> string
end

exception Empty

let () = printf "%d\n" (length empty)
