package tools

import (
	"context"
	_ "embed"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/magenta-nvim/magenta/pkg/capabilities"
)

// ExitPlanModeName is the tool offered only in plan mode.
const ExitPlanModeName = "exit_plan_mode"

// PlanMaxRunes bounds a plan the user reads in the chat.
const PlanMaxRunes = 20000

//go:embed exit_plan_mode.md
var exitPlanModeDescription string

// ExitPlanParams is the input of exit_plan_mode.
type ExitPlanParams struct {
	Plan string `json:"plan" jsonschema:"the whole plan, in Markdown"`
}

// PlanControl is implemented by a ThreadControl whose thread can be in
// plan mode (Call.Thread): ExitPlan shows the plan to the user and waits
// for their answer; approved ends plan mode.
type PlanControl interface {
	ExitPlan(ctx context.Context, toolUseID, plan string) (approved bool, err error)
}

// planOnly is a tool the registry never offers by itself: a thread in
// plan mode adds it to its requests (see chat's plan.go).
type planOnly struct{ Tool }

// OfferedIn implements Offerer.
func (planOnly) OfferedIn(*capabilities.Environment) bool { return false }

// ExitPlanMode returns the exit_plan_mode tool.
func ExitPlanMode() Tool {
	return planOnly{exitPlanMode()}
}

func exitPlanMode() Tool {
	return MustTyped(ExitPlanModeName, exitPlanModeDescription, nil,
		func(ctx context.Context, call Call, p ExitPlanParams) Result {
			plan := strings.TrimSpace(p.Plan)
			switch {
			case plan == "":
				return Errorf("plan must not be empty")
			case utf8.RuneCountInString(plan) > PlanMaxRunes:
				return Errorf("the plan is longer than 20000 characters; present a shorter one")
			}
			pc, ok := call.Thread.(PlanControl)
			if !ok {
				return Errorf("exit_plan_mode: this thread is not in plan mode")
			}
			approved, err := pc.ExitPlan(ctx, call.ID, plan)
			var denied *capabilities.DeniedError
			switch {
			case errors.As(err, &denied):
				return Result{Text: "The user did not approve the plan: " + denied.Reason + ". You are still in plan mode: ask what to change, then present a new plan.", Summary: "plan not approved"}
			case err != nil:
				return Errorf("exit_plan_mode: " + err.Error())
			case !approved:
				return Result{Text: "The user did not approve the plan. You are still in plan mode: ask what to change, then present a new plan.", Summary: "plan not approved"}
			}
			return Result{Text: "The user approved the plan. Plan mode is over: carry the plan out now (edits and commands are offered again).", Summary: "plan approved"}
		})
}
