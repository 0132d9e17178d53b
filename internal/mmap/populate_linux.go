package mmap

import "syscall"

// populate maps every page of a file when it is mapped (see File).
const populate = syscall.MAP_POPULATE
