import Foundation
import Scenario
import Testbed

/// `prestage`: every command lives in the Scenario module (testable); this is only the process edge.
@main
struct Prestage {
    static func main() {
        let arguments = CommandLine.arguments
        let environment = CommandEnvironment.process(executablePath: arguments.first ?? "prestage")
        let rest = Array(arguments.dropFirst())
        // `testbed` lives in its own module (it runs real software); the other commands in Scenario.
        let code = rest.first == "testbed" ? TestbedCommand.main(Array(rest.dropFirst()), environment: environment)
                                            : PrestageCLI.main(rest, environment: environment)
        exit(code.rawValue)
    }
}
