package experiments

// DrawFigures draws the config's figures from the result files in dir and
// returns the files written.
func (c *Config) DrawFigures(dir string) ([]string, error) {
	return nil, nil
}
