"""Running the engine over files: discovery, parallel runs, the result cache, fix and migrate."""
