// `till completion bash|zsh|fish`: prints the shell's completion script, generated from this program's
// commands and flags (cli/completion.ts).
import { Argument, type Command } from "commander";
import pkg from "../../package.json" with { type: "json" };
import { examples } from "../command.js";
import { completionScript, INSTALL, SHELLS, type Shell } from "../completion.js";

export function register(program: Command): void {
  program
    .command("completion")
    .description("print the shell completion script for bash, zsh or fish")
    .addArgument(new Argument("<shell>", "bash, zsh or fish").choices(SHELLS))
    .addHelpText(
      "after",
      examples(["till completion bash > ~/.local/share/bash-completion/completions/till", "source <(till completion zsh)", "till completion fish > ~/.config/fish/completions/till.fish"]) +
        "\nInstall:\n" +
        SHELLS.map((s) => `  ${s}:\n${INSTALL[s].split("\n").map((l) => `    ${l}`).join("\n")}`).join("\n") +
        "\n\nThe script completes commands, subcommands, flags and the values some of them take. It is made from this\n" +
        "version's commands: generate it again after upgrading till.\n",
    )
    .action(async (shell: Shell) => {
      // a run registers only the command it names (cli/main.ts): the script is made from the whole program
      const { buildProgram } = await import("../main.js");
      process.stdout.write(completionScript(shell, buildProgram(), pkg.version));
    });
}
