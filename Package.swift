// swift-tools-version:6.0
//
// Prestage: a discrete-event simulator for push-notification asset pre-staging via CDN.
//
// The target graph enforces the layers (each arrow is "may import"; Tests/ArchitectureTests checks them):
//
//   CGSL (system library, libgsl)  <-  Stochastic  <-  SimKernel  <-  InfraModel  <-  PushModel
//   PreloadKit (no dependencies)   <-  PreloadKitFoundation (real URLSession + file driver)
//   PreloadKit                     <-  PushModel (the simulator drives the client logic in virtual time)
//   Stochastic                     <-  SimStats  <-  PushModel
//   PushModel  <-  ScenarioFormat (scenario and sweep files: strict JSON, overrides, limits)
//   ScenarioFormat, PushModel, SimStats, ReportKit  <-  Experiments (replications, aggregation,
//                                                        sweeps, merge, compare, bench gate, results)
//   Experiments, ScenarioFormat  <-  PrestageCLI (the commands and argument parsing)  <-  prestage (main)
//
// Only `Stochastic` imports `CGSL`. `PreloadKit` depends on nothing of the simulator: it is the
// client logic an app would ship, and the simulator drives the very same code in virtual time.
// The models know nothing of files or commands; the file format knows nothing of experiments;
// experiments know nothing of the command line.
import PackageDescription

let strictFlags: [SwiftSetting] = [
    // `swift build -Xswiftc -DPRESTAGE_INVARIANTS` (or `make test`) turns on expensive invariant checks.
    .define("PRESTAGE_INVARIANTS", .when(configuration: .debug)),
]

let package = Package(
    name: "Prestage",
    products: [
        .library(name: "PreloadKit", targets: ["PreloadKit"]),
        .library(name: "PreloadKitFoundation", targets: ["PreloadKitFoundation"]),
        .executable(name: "prestage", targets: ["prestage"]),
    ],
    targets: [
        // Layer 0: the C library, reached only through this shim.
        .systemLibrary(
            name: "CGSL",
            pkgConfig: "gsl",
            providers: [.apt(["libgsl-dev"])]
        ),
        // zlib, reached only by LogFit's line reader (gzip and plain logs alike).
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        // Layer 1: random streams and distributions. The only module that imports CGSL.
        .target(name: "Stochastic", dependencies: ["CGSL"], swiftSettings: strictFlags),
        // Layer 2: virtual time, the pending-event set and the run loop. No domain code.
        .target(name: "SimKernel", dependencies: [], swiftSettings: strictFlags),
        // Layer 3: world models: mobile networks, CDN PoPs, shields and origin.
        .target(name: "InfraModel", dependencies: ["SimKernel", "Stochastic"], swiftSettings: strictFlags),

        // The client pre-stage logic: sans-I/O, platform-neutral, no dependencies.
        .target(name: "PreloadKit", swiftSettings: strictFlags),
        // The real driver: URLSession + an atomic file store, running PreloadKit against the real clock.
        .target(name: "PreloadKitFoundation", dependencies: ["PreloadKit"], swiftSettings: strictFlags),
        // Human-readable reports (Markdown, self-contained HTML + inline SVG) from plain data; Foundation only.
        .target(name: "ReportKit", swiftSettings: strictFlags),

        // Output statistics: replication CIs, paired comparisons, mergeable latency histograms.
        .target(name: "SimStats", dependencies: ["Stochastic"], swiftSettings: strictFlags),
        // Layer 4: devices, OS rules, users and campaigns driving PreloadKit against InfraModel.
        .target(
            name: "PushModel",
            dependencies: ["InfraModel", "SimKernel", "Stochastic", "SimStats", "PreloadKit"],
            swiftSettings: strictFlags
        ),

        // Calibration from logs: CDN and push-analytics readers (streaming, gzip), the fits (through
        // Stochastic's GSL fitting API), the scenario overlay and the fit report.
        .target(name: "LogFit", dependencies: ["Stochastic", "CZlib"], swiftSettings: strictFlags),

        // Scenario and sweep files: strict JSON decoding with path-named errors, overrides, limits.
        .target(
            name: "ScenarioFormat",
            dependencies: ["PushModel", "InfraModel", "Stochastic", "PreloadKit"],
            swiftSettings: strictFlags
        ),
        // Replications, aggregation, sweeps and their merge, comparison, the bench gate, reports and
        // atomic result directories.
        .target(
            name: "Experiments",
            dependencies: ["ScenarioFormat", "PushModel", "SimStats", "ReportKit", "SimKernel", "Stochastic", "PreloadKit"],
            swiftSettings: strictFlags
        ),
        // The loopback testbed: the scaled scenario on real software (Varnish, a Python origin, a
        // user-space link shaper, PreloadKitFoundation devices) against the model, compared.
        .target(
            name: "Testbed",
            dependencies: ["Experiments", "ScenarioFormat", "PushModel", "InfraModel", "Stochastic", "SimStats", "ReportKit",
                           "PreloadKit", "PreloadKitFoundation"],
            swiftSettings: strictFlags
        ),
        // The command-line front: argument parsing and every command (a library, so tests drive it).
        .target(
            name: "PrestageCLI",
            dependencies: ["Experiments", "ScenarioFormat", "Testbed", "LogFit", "PushModel", "ReportKit"],
            swiftSettings: strictFlags
        ),
        // Top: the command-line tool (a thin main over PrestageCLI).
        .executableTarget(
            name: "prestage",
            dependencies: ["PrestageCLI"],
            swiftSettings: strictFlags
        ),
        // Kernel hold-model benchmark plus the full model against the hold loop at the model's
        // pending-event count (`make bench`); never run as a timed test.
        .executableTarget(
            name: "prestage-kernel-bench",
            dependencies: ["SimKernel", "Stochastic", "PushModel", "ScenarioFormat"],
            swiftSettings: strictFlags
        ),

        .testTarget(name: "StochasticTests", dependencies: ["Stochastic", "CGSL"]),
        .testTarget(name: "SimKernelTests", dependencies: ["SimKernel"]),
        .testTarget(name: "InfraModelTests", dependencies: ["InfraModel", "SimKernel", "Stochastic"]),
        .testTarget(name: "PreloadKitTests", dependencies: ["PreloadKit"]),
        .testTarget(
            name: "PreloadKitFoundationTests",
            dependencies: ["PreloadKitFoundation", "PreloadKit"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(name: "SimStatsTests", dependencies: ["SimStats", "Stochastic"]),
        .testTarget(
            name: "PushModelTests",
            dependencies: ["PushModel", "InfraModel", "SimKernel", "Stochastic", "SimStats", "PreloadKit", "ScenarioFormat"]
        ),
        // Stochastic only to check that its Distribution decoding reports well through ScenarioFormat.
        .testTarget(name: "ScenarioFormatTests", dependencies: ["ScenarioFormat", "Stochastic", "PushModel", "InfraModel"]),
        // Test support: headless Chromium and the report layout assertions (desktop and phone width).
        .target(name: "ReportKitTesting", dependencies: ["ReportKit"], path: "Tests/ReportKitTesting"),
        .testTarget(name: "ReportKitTests", dependencies: ["ReportKit", "ReportKitTesting"]),
        .testTarget(name: "ExperimentsTests", dependencies: ["Experiments", "ScenarioFormat", "PushModel", "SimStats", "SimKernel", "PreloadKit"]),
        .testTarget(
            name: "PrestageCLITests",
            dependencies: ["PrestageCLI", "Experiments", "ScenarioFormat", "PushModel", "SimStats", "SimKernel", "ReportKit", "ReportKitTesting"]
        ),
        // The layer rules above, checked against this file and every source file's imports.
        .testTarget(name: "ArchitectureTests"),
        .testTarget(name: "TestbedTests", dependencies: ["Testbed", "Experiments", "ScenarioFormat", "PushModel", "InfraModel", "PreloadKit"]),
        .testTarget(name: "LogFitTests", dependencies: ["LogFit", "Stochastic", "ScenarioFormat", "Experiments", "PrestageCLI"], resources: [.copy("Samples")]),
    ],
    swiftLanguageModes: [.v6]
)
