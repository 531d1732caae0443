seed "broken" {
  cluster = 
}
