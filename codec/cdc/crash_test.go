package cdc

const childEnv = "CDC_CRASH_CHILD"

func crashChild() int { return 0 }
