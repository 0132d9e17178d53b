package extract

// historyStage brings the history memory (history/ in the memory tree) up
// to the run's source commit.
func (r *run) historyStage() error {
	return nil
}
