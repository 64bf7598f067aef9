#include "completion_command.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>

#include "exit_codes.hpp"

namespace rtctl {
namespace {

/// What one command level completes: its subcommands, its options, and
/// whether its other words are files (or a fixed list of words).
struct level {
    std::string path;  ///< "" for rtctl, "/plugins/list" for rtctl plugins list
    std::vector<std::string> commands;
    std::vector<std::string> options;
    std::vector<std::string> file_options;  ///< options whose value is a file
    std::string words;                      ///< positional words: "" for none, "FILES", or a list
};

/// The words the positional argument of a command completes to: files, a
/// fixed list, or nothing ("") for a name that only the loader knows.
std::string positional_words(const std::string& path) {
    if (path == "/completion") return "bash";
    if (path == "/plugins/info") return "";
    return "FILES";
}

/// The levels of `app` and below; `inherited`: the options of the levels
/// above that this one takes too (CLI11's fallthrough).
void collect(const CLI::App& app, const std::string& path, const level& inherited,
             std::vector<level>& levels) {
    level here{path, {}, inherited.options, inherited.file_options, ""};
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
        here.commands.push_back(sub->get_name());
    for (const CLI::Option* option : app.get_options()) {
        if (option->get_positional()) {
            here.words = positional_words(path);
            continue;
        }
        std::vector<std::string> names;
        for (const std::string& name : option->get_lnames())
            names.push_back("--" + name);
        for (const std::string& name : option->get_snames())
            names.push_back("-" + name);
        for (const std::string& name : names) {
            if (std::find(here.options.begin(), here.options.end(), name) != here.options.end())
                continue;
            here.options.push_back(name);
            if (option->get_type_name() == "FILE") here.file_options.push_back(name);
        }
    }
    levels.push_back(here);
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
        level passed_on;
        if (sub->get_fallthrough()) passed_on = here;
        collect(*sub, path + "/" + sub->get_name(), passed_on, levels);
    }
}

std::string joined(const std::vector<std::string>& words, const std::string& separator) {
    std::string text;
    for (const std::string& word : words)
        text += (text.empty() ? "" : separator) + word;
    return text;
}

void print_bash(const std::vector<level>& levels, std::ostream& out) {
    std::vector<std::string> paths, file_options;
    for (const level& l : levels) {
        if (!l.path.empty()) paths.push_back(l.path);
        for (const std::string& option : l.file_options)
            if (std::find(file_options.begin(), file_options.end(), option) == file_options.end())
                file_options.push_back(option);
    }
    out << "# bash completion for rtctl, made by `rtctl completion bash`. Load it with\n"
           "#   source <(rtctl completion bash)\n"
           "# or install it:\n"
           "#   rtctl completion bash > ~/.local/share/bash-completion/completions/rtctl\n"
           "_rtctl() {\n"
           "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} path= i\n"
           "    # The command path so far: the words before the cursor that name commands.\n"
           "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
           "        case \"$path/${COMP_WORDS[i]}\" in\n"
           "            "
        << joined(paths, "|") << ") path=$path/${COMP_WORDS[i]} ;;\n"
        << "        esac\n"
           "    done\n";
    if (!file_options.empty())
        out << "    case \"$prev\" in\n"
               "        "
            << joined(file_options, "|")
            << ") COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"
               "    esac\n";
    out << "    local commands= options= words=\n"
           "    case \"$path\" in\n";
    for (const level& l : levels)
        out << "        \"" << l.path << "\") commands=\"" << joined(l.commands, " ")
            << "\" options=\"" << joined(l.options, " ") << "\" words=\"" << l.words << "\" ;;\n";
    out << "    esac\n"
           "    if [[ $cur == -* ]]; then\n"
           "        COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))\n"
           "    elif [[ -n $commands ]]; then\n"
           "        COMPREPLY=($(compgen -W \"$commands\" -- \"$cur\"))\n"
           "    elif [[ $words == FILES ]]; then\n"
           "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
           "    elif [[ -n $words ]]; then\n"
           "        COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
           "    fi\n"
           "}\n"
           "complete -o filenames -F _rtctl rtctl\n";
}

}  // namespace

CLI::App* add_completion_command(CLI::App& app, std::string& shell) {
    CLI::App* command = app.add_subcommand(
        "completion", "print a shell completion script for rtctl (only bash is supported)");
    command->add_option("shell", shell, "the shell: bash")
        ->required()
        ->check(CLI::IsMember({"bash"}));
    command->footer("Example:\n  source <(rtctl completion bash)");
    return command;
}

int completion_command(const CLI::App& app, const std::string& shell) {
    std::vector<level> levels;
    collect(app, "", level{}, levels);
    if (shell == "bash") print_bash(levels, std::cout);
    return exit_ok;
}

}  // namespace rtctl
