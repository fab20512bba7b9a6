import Foundation
import PrestageCLI

/// `prestage`: every command lives in the PrestageCLI module (testable); this is only the process edge.
@main
struct Prestage {
    static func main() {
        let arguments = CommandLine.arguments
        let environment = CommandEnvironment.process(executablePath: arguments.first ?? "prestage")
        let code = PrestageCLI.main(Array(arguments.dropFirst()), environment: environment)
        exit(code.rawValue)
    }
}
