package prompts

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"
)

// Limits on what the files may hold; what is over them is skipped or cut
// with a warning naming the file.
const (
	// MaxFileBytes caps one skill, command or agent file: a larger file
	// is skipped, unread.
	MaxFileBytes = 128 << 10
	// MaxDescriptionRunes caps a description the model reads (the Agent
	// Skills limit); a longer one is cut.
	MaxDescriptionRunes = 1024
	// MaxNameLen caps a name (the Agent Skills limit).
	MaxNameLen = 64
	// maxCommandSummary caps the description a command without one gets
	// from its first line.
	maxCommandSummary = 100
)

// Scope says whose a file is.
type Scope string

const (
	// User files are the user's own: ~/.config/magenta and ~/.claude.
	User Scope = "user"
	// Workspace files are part of the repository open in the editor:
	// someone else may have written them.
	Workspace Scope = "workspace"
)

// Origin is where a definition was read.
type Origin struct {
	Path  string // the file, absolute
	Scope Scope
	// Shown is the path as the chat and the model see it: relative to
	// the workspace, or starting with ~ for the home directory.
	Shown string
}

// Skill is an Agent Skills skill: a directory holding SKILL.md (name and
// description in its front matter, the instructions in its body) and the
// files the instructions name.
type Skill struct {
	Name, Description string
	Dir               string // the skill's directory
	Body              string
	Origin
}

// Command is a prompt file the user runs as /name.
type Command struct {
	Name        string
	Description string
	// ArgumentHint is what the arguments are ("[file] [line]").
	ArgumentHint string
	// Model names the profile the command runs on ("" for the thread's).
	Model string
	// Namespace is the subdirectory the file is in ("frontend", or
	// "frontend:forms" for frontend/forms/), shown beside the name.
	Namespace string
	Body      string
	Origin
}

// Agent is a sub-agent type defined in a file.
type Agent struct {
	Name, Description string
	// Tools names the tools it may use, as the file wrote them; nil for
	// its parent's.
	Tools []string
	// Model names the profile it runs on ("" for its parent's).
	Model  string
	Prompt string // the file's body: its system prompt
	Origin
}

var (
	// Regular expressions are compiled on first use (sync.OnceValue), not
	// at package init: every host start, and so the first toggle, would
	// pay for them.
	skillName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`) })
	agentName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`) })
	// A command name must be typeable after "/" and end at a space.
	commandName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`) })
)

// parseSkill reads a SKILL.md in directory dirName. Warnings are problems
// that leave the skill usable (a description cut); an error skips it.
func parseSkill(data []byte, dirName string) (s Skill, warnings []string, err error) {
	doc, err := Parse(data)
	if err != nil {
		return Skill{}, nil, err
	}
	if !doc.HasFrontMatter {
		return Skill{}, nil, errors.New("it has no front matter (SKILL.md starts with a --- block holding name and description)")
	}
	if s.Name, err = doc.String("name"); err != nil {
		return Skill{}, nil, err
	}
	if s.Name == "" {
		s.Name = dirName
	}
	if len(s.Name) > MaxNameLen || !skillName().MatchString(s.Name) {
		return Skill{}, nil, fmt.Errorf("the name %q is not a skill name (1–%d lowercase letters, digits and single hyphens)", s.Name, MaxNameLen)
	}
	if s.Description, warnings, err = description(doc); err != nil {
		return Skill{}, nil, err
	}
	if s.Description == "" {
		return Skill{}, nil, errors.New("it has no description (the model reads it to choose the skill)")
	}
	s.Body = doc.Body
	return s, warnings, nil
}

// parseCommand reads a command file; front matter is optional.
func parseCommand(data []byte, name string) (c Command, warnings []string, err error) {
	if len(name) > MaxNameLen || !commandName().MatchString(name) {
		return Command{}, nil, fmt.Errorf("%q cannot be typed as a command name (letters, digits, '.', '_' and '-', at most %d)", name, MaxNameLen)
	}
	doc, err := Parse(data)
	if err != nil {
		return Command{}, nil, err
	}
	c = Command{Name: name, Body: doc.Body}
	if c.Description, warnings, err = description(doc); err != nil {
		return Command{}, nil, err
	}
	if c.Description == "" {
		c.Description = firstLine(doc.Body)
	}
	if c.ArgumentHint, err = argumentHint(doc); err != nil {
		return Command{}, nil, err
	}
	if c.Model, err = doc.String("model"); err != nil {
		return Command{}, nil, err
	}
	return c, warnings, nil
}

// parseAgent reads an agent file; front matter with a name and a
// description is required.
func parseAgent(data []byte) (a Agent, warnings []string, err error) {
	doc, err := Parse(data)
	if err != nil {
		return Agent{}, nil, err
	}
	if !doc.HasFrontMatter {
		return Agent{}, nil, errors.New("it has no front matter (an agent file starts with a --- block holding name and description)")
	}
	if a.Name, err = doc.String("name"); err != nil {
		return Agent{}, nil, err
	}
	if a.Name == "" {
		return Agent{}, nil, errors.New("it has no name")
	}
	if len(a.Name) > MaxNameLen || !agentName().MatchString(a.Name) {
		return Agent{}, nil, fmt.Errorf("the name %q is not an agent name (letters, digits, '_' and '-', at most %d)", a.Name, MaxNameLen)
	}
	if a.Description, warnings, err = description(doc); err != nil {
		return Agent{}, nil, err
	}
	if a.Description == "" {
		return Agent{}, nil, errors.New("it has no description (the model reads it to choose the agent)")
	}
	if a.Tools, err = doc.List("tools"); err != nil {
		return Agent{}, nil, err
	}
	if a.Model, err = doc.String("model"); err != nil {
		return Agent{}, nil, err
	}
	if a.Model == "inherit" {
		a.Model = ""
	}
	a.Prompt = doc.Body
	return a, warnings, nil
}

// description is the description field, cut to MaxDescriptionRunes.
func description(doc Document) (string, []string, error) {
	d, err := doc.String("description")
	if err != nil {
		return "", nil, err
	}
	d = strings.Join(strings.Fields(d), " ")
	if utf8.RuneCountInString(d) <= MaxDescriptionRunes {
		return d, nil, nil
	}
	r := []rune(d)
	return string(r[:MaxDescriptionRunes-1]) + "…", []string{fmt.Sprintf("its description is %d characters; the model reads the first %d", len(r), MaxDescriptionRunes)}, nil
}

// argumentHint is the argument-hint field; a YAML list (the way
// "argument-hint: [file]" reads) is written back in brackets.
func argumentHint(doc Document) (string, error) {
	if list, ok := doc.Fields["argument-hint"].([]any); ok {
		parts := make([]string, len(list))
		for i, item := range list {
			parts[i] = "[" + fmt.Sprint(item) + "]"
		}
		return strings.Join(parts, " "), nil
	}
	return doc.String("argument-hint")
}

// firstLine is the first non-empty line of body without its heading
// marks, cut to maxCommandSummary characters.
func firstLine(body string) string {
	for _, line := range strings.Split(body, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(line, "#"))
		if line == "" {
			continue
		}
		if r := []rune(line); len(r) > maxCommandSummary {
			line = string(r[:maxCommandSummary-1]) + "…"
		}
		return line
	}
	return ""
}
