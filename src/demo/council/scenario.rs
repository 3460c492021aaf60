//! The council demo's scenario: what the three agents do, in order, from boot to the last
//! verification, including the planted faults the module docs of `council` list.

use serde_json::{json, Value};

use super::builder::{doc_uuid, sign, F};
use super::transcript::TITLE;
use super::*;

impl Builder {
    pub(super) fn build(mut self) -> CouncilDemo {
        let [gpt, claude, checker] = [&AGENTS[0], &AGENTS[1], &AGENTS[2]];
        // Boot and registration.
        for a in &AGENTS {
            self.event(None, json!({"AgentBooted": {"agent_id": a.runtime_id, "agent_type": a.agent_type, "agent_version": a.version, "archive_path": format!("{}@{}", a.agent_type, a.version)}}));
            let key = demo_key(a.id);
            let record = json!({"@type": "prov:SoftwareAgent", "@id": a.id, "name": a.name, "version": a.version, "publisher": a.publisher, "capabilities": a.capabilities,
                "keyId": key.key_id, "publicKey": key.verifying_key().map(|k| embedded_form(&k)).unwrap_or_default()});
            self.emit(Stream::A2ap, &record);
            self.tick(150);
        }
        let source = json!({"@type": "a2ap:SourceDocument", "@id": DOCUMENT_ID, "title": TITLE, "text": self.text,
            "source": {"@id": SOURCE_ID, "name": "Riverton City Council video archive", "url": "https://example.org/riverton/council/2025-10-14"}});
        self.emit(Stream::A2ap, &source);
        self.tick(400);

        // The summariser's task.
        let task = "task-summarise-council-2025-10-14";
        self.event(Some(task), json!({"TaskCreated": {"task_id": task, "agent_id": gpt.runtime_id}}));
        self.status(task, None, "submitted");
        self.message(
            task,
            false,
            "user",
            "Summarise the Riverton City Council meeting of 14 October 2025 into claims with evidence.",
            (gpt, None),
            Some(DOCUMENT_ID),
        );
        self.tick(200);
        self.status(task, Some("submitted"), "working");
        self.tool(task, gpt, "fetch_transcript", json!({"document": DOCUMENT_ID}), 340);
        self.llm(
            task,
            gpt,
            "summarise_transcript",
            "You summarise city council meetings. Every claim must cite byte ranges of the transcript.",
            "Summarise the transcript by agenda item.",
            610,
        );

        let planner = "Ordinance 2025-31 rezones the former bus depot at 400 Elm Street from light industrial to mixed use.";
        let roll = "Ortega, yes. Raman, yes. Becker, no. Nguyen, yes. Whitfield, yes. The motion carries four to one.";
        let mut summaries: Vec<(String, Value)> = Vec::new();
        let s1 = self.statement(
            gpt,
            "The council approved Ordinance 2025-31, rezoning 400 Elm Street to mixed use, by a 4–1 vote.",
            0.93,
            vec![self.segment(planner, 0.82), self.segment(roll, 0.95)],
            &[],
        );
        summaries.push(s1.clone());
        self.tick(700);
        let s2 = self.statement(
            gpt,
            "The Elm Street project would include 120 apartments, 18 of them affordable.",
            0.9,
            vec![self.segment(
                "The developer proposes 120 apartments, 18 of them affordable, over ground-floor retail.",
                0.9,
            )],
            &[("supports", json!([s1.0]))],
        );
        summaries.push(s2.clone());
        self.tick(700);
        let s3 = self.statement(gpt, "The Finance Director projected a $1.2 million parks shortfall for fiscal year 2026, mostly from Riverside Pool repairs.", 0.91,
            vec![self.segment("The parks department projects a shortfall of one point two million dollars for fiscal year 2026, mostly from the Riverside Pool repairs.", 0.93)], &[]);
        summaries.push(s3.clone());
        self.tick(700);
        let parking_quote = "Parking on our block is already impossible after six, and I ask the council to require a parking study before any vote.";
        let (s4_id, mut s4) = self.statement(gpt, "A resident asked the council to require a parking study before voting on the Elm Street project.", 0.88,
            vec![self.segment(parking_quote, 0.9)], &[]);
        // Planted fault: the quote is altered after signing.
        s4["evidence"][0]["quoteText"] = json!("Parking on our block is already impossible after six, and the council promised a parking study before any vote.");
        summaries.push((s4_id.clone(), s4));
        self.tick(700);
        let s5 = self.statement(gpt, "The council approved the parks budget amendment, moving $900,000 from the capital reserve.", 0.72,
            vec![self.segment("The amendment before us moves nine hundred thousand dollars from the capital reserve to cover most of that gap.", 0.7)], &[]);
        summaries.push(s5.clone());
        self.tick(700);
        let s7 = self.statement(
            gpt,
            "The Main Street bike lane pilot will begin in March 2026.",
            0.7,
            vec![
                self.segment("We would begin in the spring, pending the results of the traffic study.", 0.75)
            ],
            &[],
        );
        summaries.push(s7.clone());
        self.tick(700);
        let s8 = self.statement(
            gpt,
            "The council unanimously authorized a six-month bike lane pilot on Main Street.",
            0.92,
            vec![
                self.segment("Six months, with a report back to the council at the end.", 0.8),
                self.segment("The pilot is authorized unanimously, five to zero.", 0.95),
            ],
            &[],
        );
        summaries.push(s8.clone());
        self.tick(700);

        for (id, doc) in &summaries {
            self.event(Some(task), json!({"TaskArtifactGenerated": {"task_id": task, "artifact_id": id, "artifact_type": "a2ap:ProvenanceStatement"}}));
            self.emit(Stream::A2ap, doc);
            self.tick(120);
            let (rid, req) = self.request(gpt, id);
            self.emit(Stream::A2ap, &req);
            for to in [claude, checker] {
                self.message(
                    task,
                    true,
                    "agent",
                    &format!("Please verify statement {id}."),
                    (gpt, Some(to)),
                    Some(&rid),
                );
            }
            self.tick(250);
        }
        self.status(task, Some("working"), "completed");
        self.tick(1_000);

        // The verifiers.
        type Verdict<'a> = (&'a str, &'a str, f64, Vec<F>);
        let pass = |e: &'static str| {
            vec![
                F("source-accuracy", "PASS", e, 0.95),
                F("logical-consistency", "PASS", "The claim follows from the quoted evidence.", 0.9),
                F("evidence-sufficiency", "PASS", "The cited segments are sufficient.", 0.88),
            ]
        };
        let claude_verdicts: Vec<Verdict> = vec![
            (&s1.0, "VALIDATED", 0.94, pass("Roll call at 00:02:36 records four yes votes and one no.")),
            (&s2.0, "VALIDATED", 0.93, pass("Quote at 00:01:15 matches the transcript bytes.")),
            (
                &s3.0,
                "VALIDATED",
                0.95,
                pass("Quote at 00:02:58 matches; $1.2 million is 'one point two million dollars'."),
            ),
            (&s4_id, "VALIDATED", 0.9, pass("Quote at 00:00:34 matches the transcript bytes.")),
            (
                &s5.0,
                "CHALLENGED",
                0.9,
                vec![
                    F(
                        "source-accuracy",
                        "FAIL",
                        "At 00:04:06 the amendment was tabled to November 4; no vote approved it.",
                        0.95,
                    ),
                    F("logical-consistency", "FAIL", "Describing a proposal is not approving it.", 0.85),
                ],
            ),
            (
                &s7.0,
                "VALIDATED",
                0.62,
                vec![
                    F("source-accuracy", "PASS", "The pilot starts in the spring; March is plausible.", 0.6),
                    F("evidence-sufficiency", "PASS", "One segment cited.", 0.64),
                ],
            ),
            (&s8.0, "VALIDATED", 0.95, pass("Vote at 00:05:16 was five to zero; duration at 00:05:00.")),
        ];
        let checker_verdicts: Vec<Verdict> = vec![
            (&s1.0, "VALIDATED", 0.9, pass("Aligned with the roll call at 00:02:36.")),
            (&s2.0, "VALIDATED", 0.91, pass("Aligned with the planner's statement at 00:01:15.")),
            (&s3.0, "VALIDATED", 0.92, pass("Aligned with the finance director at 00:02:58.")),
            (&s4_id, "VALIDATED", 0.88, pass("Aligned with public comment at 00:00:34.")),
            (&s5.0, "CHALLENGED", 0.85, vec![F("source-accuracy", "FAIL", "The motion at 00:03:44 tabled the amendment; the roll call at 00:04:06 confirms it.", 0.9)]),
            (&s7.0, "CHALLENGED", 0.88, vec![F("source-accuracy", "FAIL", "The transcript says 'in the spring, pending the results of the traffic study'; no month is given.", 0.9), F("evidence-sufficiency", "FAIL", "Nothing in the transcript supports March 2026.", 0.86)]),
            (&s8.0, "VALIDATED", 0.9, pass("Aligned with 00:05:00 and 00:05:16.")),
        ];
        let mut parks_tabled = String::new();
        for (verifier, verdicts) in [(claude, claude_verdicts), (checker, checker_verdicts)] {
            let vtask = format!("task-verify-{}", verifier.agent_type);
            self.event(
                Some(&vtask),
                json!({"TaskCreated": {"task_id": vtask, "agent_id": verifier.runtime_id}}),
            );
            self.status(&vtask, None, "submitted");
            self.message(
                &vtask,
                false,
                "agent",
                "Please verify the council meeting statements.",
                (gpt, Some(verifier)),
                None,
            );
            self.status(&vtask, Some("submitted"), "working");
            self.tool(
                &vtask,
                verifier,
                "read_transcript_range",
                json!({"document": DOCUMENT_ID, "from": "00:00:00", "to": "00:05:41"}),
                280,
            );
            for (target, verdict, confidence, findings) in verdicts {
                self.llm(
                    &vtask,
                    verifier,
                    "verify_statement",
                    "You verify claims against the transcript bytes they cite.",
                    &format!("Verify statement {target}."),
                    180,
                );
                let (vid, doc) = self.response(
                    verifier,
                    target,
                    (verdict, confidence, &findings),
                    &demo_key(verifier.id),
                    "",
                );
                self.event(Some(&vtask), json!({"TaskArtifactGenerated": {"task_id": vtask, "artifact_id": vid, "artifact_type": "a2ap:VerificationResponse"}}));
                self.emit(Stream::A2ap, &doc);
                self.message(
                    &vtask,
                    true,
                    "agent",
                    &format!("{verdict}: statement {target}."),
                    (verifier, Some(gpt)),
                    Some(&vid),
                );
                self.tick(300);
            }
            if verifier.id == VERIFIER_CLAUDE {
                // Claude states what the transcript does say about the parks amendment.
                self.llm(
                    &vtask,
                    verifier,
                    "state_correction",
                    "State what the transcript says instead.",
                    "The parks budget amendment.",
                    90,
                );
                let (id, doc) = self.statement(
                    verifier,
                    "The council tabled the parks budget amendment until its November 4 meeting.",
                    0.95,
                    vec![
                        self.segment("I move to table the amendment until the November 4 meeting", 0.85),
                        self.segment("The amendment is tabled to November 4.", 0.97),
                    ],
                    &[("contradicts", json!([s5.0]))],
                );
                self.event(Some(&vtask), json!({"TaskArtifactGenerated": {"task_id": vtask, "artifact_id": id, "artifact_type": "a2ap:ProvenanceStatement"}}));
                self.emit(Stream::A2ap, &doc);
                self.tick(120);
                let (rid, req) = self.request(verifier, &id);
                self.emit(Stream::A2ap, &req);
                self.message(
                    &vtask,
                    true,
                    "agent",
                    &format!("Please verify statement {id}."),
                    (verifier, Some(checker)),
                    Some(&rid),
                );
                parks_tabled = id;
                self.tick(300);
            }
            self.status(&vtask, Some("working"), "completed");
            self.tick(800);
        }

        // The fact checker and the summariser verify Claude's correction.
        for verifier in [checker, gpt] {
            let vtask = format!("task-review-correction-{}", verifier.agent_type);
            self.event(
                Some(&vtask),
                json!({"TaskCreated": {"task_id": vtask, "agent_id": verifier.runtime_id}}),
            );
            self.message(
                &vtask,
                false,
                "agent",
                &format!("Please verify statement {parks_tabled}."),
                (claude, Some(verifier)),
                None,
            );
            self.status(&vtask, None, "working");
            self.llm(
                &vtask,
                verifier,
                "verify_statement",
                "You verify claims against the transcript bytes they cite.",
                &format!("Verify statement {parks_tabled}."),
                150,
            );
            let confidence = if verifier.id == SUMMARISER { 0.9 } else { 0.93 };
            let (vid, mut doc) = self.response(
                verifier,
                &parks_tabled,
                (
                    "VALIDATED",
                    confidence,
                    &pass("Roll call at 00:04:06: the amendment is tabled to November 4."),
                ),
                &demo_key(verifier.id),
                "correction",
            );
            doc["inResponseTo"] = json!(doc_uuid(&[VERIFIER_CLAUDE, "request", &parks_tabled]));
            sign(&mut doc, &demo_key(verifier.id));
            self.event(Some(&vtask), json!({"TaskArtifactGenerated": {"task_id": vtask, "artifact_id": vid, "artifact_type": "a2ap:VerificationResponse"}}));
            self.emit(Stream::A2ap, &doc);
            self.message(
                &vtask,
                true,
                "agent",
                &format!("VALIDATED: statement {parks_tabled}."),
                (verifier, Some(claude)),
                Some(&vid),
            );
            self.status(&vtask, Some("working"), "completed");
            self.tick(600);
        }

        // Planted fault: a verification in the fact checker's name, signed with another key.
        self.tick(1_500);
        let (forged_id, forged) = self.response(
            checker,
            &s5.0,
            ("VALIDATED", 0.97, &pass("Approved as described.")),
            &forger_key(),
            "forged",
        );
        self.emit(Stream::A2ap, &forged);

        // A researcher asks about zoning (the council scenario's fifth step), answered from the statements.
        self.tick(2_000);
        self.research(&[&s1.0, &s2.0]);

        let registry_json = demo_registry().to_json();
        CouncilDemo {
            records: self.records,
            registry_json,
            transcript: self.text,
            utterances: self.spans,
            statements: DemoStatements {
                rezoning_approved: s1.0,
                affordable_units: s2.0,
                parks_shortfall: s3.0,
                parking_study_altered: s4_id,
                parks_approved: s5.0,
                parks_tabled,
                bike_pilot_march: s7.0,
                bike_pilot_authorized: s8.0,
            },
            forged_verification: forged_id,
        }
    }
}
