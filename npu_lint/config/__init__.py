"""What a run is asked to do: Settings, read from configuration files and options."""
