seed "a" {
	provider {
		type = 1
	}
}
