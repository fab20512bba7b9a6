
/// The limits a scenario or sweep file is checked against (and the command line with them), stated once.
public enum ScenarioLimits {
    /// Most replications per run.
    public static let replicationsMax = 10_000
    /// Most devices a scenario may ask for (PushModel's population limit).
    public static let devicesMax = 50_000_000
}

/// The tool's version, recorded in every summary and sweep manifest.
public enum ToolVersion {
    /// The version number.
    public static let number = "0.1.0"
    /// "prestage 0.1.0".
    public static var text: String { "prestage " + number }
}
