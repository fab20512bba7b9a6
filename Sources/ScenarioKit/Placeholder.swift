enum ScenarioKitPlaceholder {}
