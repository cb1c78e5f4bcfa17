#pragma once
// The scenario's settings, each declared once: its file key (and the older or shorter keys still read), its
// command-line flag, its editor field, label and help, its bounds and default, and how it is read from and written to
// a Scenario. The scenario file's reader and writer, the validation-run reader, the command line's options and their
// --help, the Python keyword arguments (which are the flags), and the Predict and scenario editors are built from
// this table, so a bound or a word is the same on every surface. Adding a lever is one entry here, its cost term
// and a test (docs/architecture.md, "Adding a lever").
//
// Not in the table: what identifies the run rather than configures it (the model, the hardware and the cluster's
// network, which a scenario holds in its hardware, the GPU count), the composite workload inputs with readers of
// their own (sequence packing, vision tokens), the measured figures and the money inputs.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/scenario/scenario.h"

namespace mfu {

class FieldReader;

// The scenario file object that holds the key ("workload", "parallelism", "flags", or the file's top level).
enum class SettingSection { Top, Workload, Parallelism, Flags };

// Which editor of the window shows the setting's field.
enum class SettingEditor { None, Scenario, Predict };

enum class SettingKind {
    Count, // a whole number within [minimum, maximum]
    Switch, // on or off
    Choice, // one of a few words (an enum)
    Number, // a real number within [minimumNumber, maximumNumber] (and `valid`, when set)
    Text, // a text with its own grammar (a pipeline layout, a module list), parsed by `setText`
};

struct SettingChoice {
    int value = 0; // the enum's value
    std::string_view key = {}; // the word in files and on the command line
    std::string_view label = {}; // the editor's item
    std::vector<std::string_view> aliases = {}; // other words read as this one ("fp16" for bf16)
};

struct Setting {
    std::string_view key = {}; // file key within its section
    SettingSection section = SettingSection::Parallelism;
    SettingKind kind = SettingKind::Count;
    std::string_view flag = {}; // command-line flag without "--"; "" when the command line has none
    std::string_view valueName = {}; // the flag's value in --help ("N", "KIND")
    std::string_view field = {}; // the editor field's objectName; "" when no editor shows it
    SettingEditor editor = SettingEditor::Predict;
    std::string_view label = {}; // the editor's label, with its mnemonic ("&TP")
    std::string_view help = {}; // --help text, tooltip and accessible description
    std::vector<std::string_view> aliases = {}; // other keys read as this one (validation tables' "seq")

    // Count bounds (inclusive), Number bounds and an extra rule for numbers ("0 or from 1 to 16").
    int64_t minimum = 0;
    int64_t maximum = 0;
    double minimumNumber = 0;
    double maximumNumber = 0;
    bool (*valid)(double) = nullptr;
    std::string_view rule = {}; // what `valid` or the bounds demand, for messages ("0 (dropless) or from 1 to 16")

    std::vector<SettingChoice> choices = {}; // Choice; for a Switch shown as a two-item list: off, then on
    // A Switch flag sets this value (--eager turns `compiled` off); a Choice whose older files wrote a boolean
    // writes false for its first choice and true for this one.
    bool flagSets = true;
    std::string_view trueChoice = {};
    std::string_view zeroText = {}; // the editor's text for 0 ("auto", "even", "all")
    std::string_view suffix = {}; // the editor's unit suffix (" tokens")
    bool required = false; // a scenario file must state it
    bool writtenWhenDefault = true; // false: written only when set, so older builds still open the file
    bool textAsList = false; // Text written as a JSON list of words (recompute_modules)
    bool sequenceLength = false; // a Count read as a sequence length: "32k" is 32,768 tokens

    int64_t (*get)(const Scenario&) = nullptr; // Count, Switch (0/1), Choice (enum value)
    void (*set)(Scenario&, int64_t) = nullptr;
    double (*getNumber)(const Scenario&) = nullptr;
    void (*setNumber)(Scenario&, double) = nullptr;
    std::string (*getText)(const Scenario&) = nullptr;
    void (*setText)(Scenario&, std::string_view) = nullptr; // throws InputError saying what is wrong in the text
};

// Every setting, in the order the editors show them.
std::span<const Setting> scenarioSettings();
// nullptr when no setting has this file key.
const Setting* findSetting(std::string_view key);
// The setting an editor field shows; nullptr when none.
const Setting* findSettingByField(std::string_view field);
const Setting* findSettingByFlag(std::string_view flag);
// The file keys of one section (aliases excluded), for a reader's list of known keys.
std::vector<std::string_view> settingKeys(SettingSection section);

// The value's word ("zero_bubble") or number as text, as a file or a flag writes it.
std::string settingValueText(const Setting& s, const Scenario& scenario);
// The choice a word names (aliases included); nullptr when none.
const SettingChoice* findChoice(const Setting& s, std::string_view word);
// "1f1b, interleaved_1f1b or zero_bubble".
std::string choiceList(const Setting& s);
// Is the value the setting's default (the value a default Scenario holds)?
bool isSettingDefault(const Setting& s, const Scenario& scenario);

// Sets the setting from text typed on a command line or in a field: a count or number in core/number_parse.h's
// syntax, a choice's word, "on"/"off" for a switch, a text in its own grammar. Throws InputError saying what is
// wrong and what is allowed (the caller prefixes the flag or field).
void applySettingText(const Setting& s, std::string_view text, Scenario& scenario);
// Sets a count, switch or choice from its integer value; throws InputError when out of bounds.
void applySettingValue(const Setting& s, int64_t value, Scenario& scenario);
// Sets a number setting; throws InputError when out of bounds.
void applySettingNumber(const Setting& s, double value, Scenario& scenario);
// What the setting accepts: "a whole number from 1 to 1,000,000", "0 (dropless) or a capacity factor between 1 and
// 16".
std::string settingRangeText(const Setting& s);
// Why `value` is refused ("" when it is within bounds): "must be " and the range.
std::string countBoundsReason(const Setting& s, int64_t value);

// Reads every setting of `section` present in `r` (and their aliases) into `scenario`; throws FieldError naming
// the key. With no section, reads the settings of every section from one flat object (validation runs).
void readSettings(const FieldReader& r, std::optional<SettingSection> section, Scenario& scenario);
// Writes the settings of `section`: those written when default always, the others when they differ from it.
void writeSettings(const Scenario& scenario, SettingSection section, nlohmann::json& out);

// What one setting implies for another when that other was not given: more than one virtual stage runs the
// interleaved 1F1B schedule. `scheduleGiven`: the schedule was stated.
void applyImpliedSettings(Scenario& scenario, bool scheduleGiven);

// Flags that set several settings at once, or one to a fixed value, under the name a framework gives them
// (--liger-kernel, --expert-overlap). Applied before the settings' own flags, which win.
struct SettingShorthand {
    std::string_view flag = {};
    std::string_view help = {};
    std::vector<std::pair<std::string_view, int64_t>> sets; // setting key, value
};
std::span<const SettingShorthand> settingShorthands();

} // namespace mfu
