package extract

import (
	"context"

	"github.com/konteks/git-konteks/history"
	"github.com/konteks/git-konteks/manifest"
)

// historyStage brings the history memory (history/ in the memory tree) up
// to the run's source commit: it records the commits the source reaches
// that no earlier run recorded (history.Update). A rebuild starts from an
// empty tree, so it rewalks the whole history: that is what recovers a
// corrupt or hostile history.
func (r *run) historyStage() error {
	cfg, err := history.ReadConfig(r.repo)
	if err != nil {
		return err
	}
	res, err := history.Update(context.Background(), r.repo, r.editor, r.writer, r.target.Hash, cfg, nil)
	if err != nil {
		return err
	}
	if res.Enabled {
		r.history = &manifest.History{Commits: res.Total, New: res.New, Segments: res.Segments}
	}
	return nil
}
