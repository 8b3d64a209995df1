"""The run store and the processes around it: one folder per run (store, files), claims on run keys, whole-life locks, stop signals, the background launcher and its slot wait."""
