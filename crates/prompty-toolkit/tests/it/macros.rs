//! `include_prompty!` on prompts that compile: ordinary tests, each case a module that uses
//! the generated types as a program would. The prompts that must not compile, with the
//! compiler's messages, are the cases of `ui.rs`.

#![cfg(feature = "macros")]

mod all_kinds {
    // Every kind becomes a Rust type; objects with properties become nested structs; inputs that
    // are not required, or have a default, are options; odd names become snake_case fields.
    prompty_toolkit::include_prompty!("tests/ui/prompts/all_kinds.prompty");

    #[test]
    fn all_kinds() -> Result<(), prompty_toolkit::Error> {
        let inputs = TripPlannerInputs {
            city: "Lisbon".to_owned(),
            days: 3,
            budget: 1500.5,
            flexible: true,
            stops: vec!["Belém".to_owned(), "Sintra".to_owned()],
            traveller: TripPlannerTraveller {
                name: "Ada".to_owned(),
                age: Some(36),
                home: Some(TripPlannerTravellerHome { country: "UK".to_owned() }),
            },
            style: None,
            notes: None,
            r#type: Some("!".to_owned()),
            user_name: Some("?".to_owned()),
            max_hops: Some(1),
        };
        let messages = inputs.render()?;
        assert_eq!(messages.len(), 2);
        assert_eq!(messages[0].text_content(), "You plan trips in a relaxed style.");
        assert_eq!(
            messages[1].text_content(),
            "Ada (36) from UK wants 3 days in Lisbon for 1500.5 (flexible: True).\nStops: Belém, Sintra. !?"
        );
        // The prompt built from compile-time data is the one loading the file gives.
        let loaded = prompty_toolkit::from_str(include_str!("../ui/prompts/all_kinds.prompty"))?;
        assert_eq!(TripPlannerInputs::prompty()?.prompt(), loaded.prompt());
        assert_eq!(loaded.render(&inputs)?, messages);
        // Fields serialize under the inputs' own names; `None` is left out.
        let json = serde_json::to_value(&inputs).expect("serializes");
        assert_eq!(json["max-hops"], 1);
        assert_eq!(json["userName"], "?");
        assert!(json.get("notes").is_none());
        Ok(())
    }
}

#[cfg(feature = "mustache")]
mod mustache_and_names {
    // A Mustache prompt; a type name given with `as`; two prompts of one name in two modules.
    prompty_toolkit::include_prompty!("tests/ui/prompts/greeting.mustache.prompty");

    mod other {
        prompty_toolkit::include_prompty!("tests/ui/prompts/greeting.mustache.prompty");
    }

    prompty_toolkit::include_prompty!("tests/ui/prompts/optional.prompty" as Topic);

    #[test]
    fn mustache_and_names() -> Result<(), prompty_toolkit::Error> {
        let messages = GreetingInputs { name: "Ada & Bob".into() }.render()?;
        assert_eq!(messages[0].text_content(), "Hello Ada & Bob!");
        assert_eq!(other::GreetingInputs { name: "Cy".into() }.render()?[0].text_content(), "Hello Cy!");
        assert_eq!(TopicInputs::default().render()?[0].text_content(), "Tell me about the weather.");
        Ok(())
    }
}

mod optional {
    // A prompt whose inputs are all optional gets `Default`; defaults apply to `None`.
    prompty_toolkit::include_prompty!("tests/ui/prompts/optional.prompty");

    #[test]
    fn optional() -> Result<(), prompty_toolkit::Error> {
        let messages = OptionalInputs::default().render()?;
        assert_eq!(messages[0].text_content(), "Tell me about the weather.");
        let inputs = OptionalInputs { tone: Some("dry".into()), count: Some(2), ..Default::default() };
        assert_eq!(inputs.render()?[0].text_content(), "Tell me about the weather in a dry tone, 2 times.");
        Ok(())
    }
}
