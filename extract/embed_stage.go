package extract

// embedStage runs after every record of a run is decided and before the
// final tree is written. It is where vectors for new embedding texts are
// computed and stored under vectors/<model>/ (the recall issue); until
// then it does nothing. It may read r.editor (the memory tree being built),
// r.prev (memory before the run) and write through r.writer.
func (r *run) embedStage() error { return nil }
