package graph

// FindScan is Find over the records, for comparison with the cache.
var FindScan = findScan
